import { describe, expect, it } from 'vitest';
import { progressFromLogs } from './progress.js';
import { mediaTypeFromUrl } from './media.js';

describe('progressFromLogs', () => {
  it.each<[string[], number | null]>([
    [[], null],
    [['loading model', 'warming up'], null],
    [['  10%|█         | 2/20 [00:01<00:09]', ' 45%|████▌     | 9/20 [00:04<00:05]'], 9 / 20],
    [['progress: 30%', 'progress: 75%'], 0.75],
    [['done 100%', 'cleaning up'], 1],
    [['140% weird'], 1],
  ])('%j -> %s', (lines, want) => {
    const got = progressFromLogs(lines);
    if (want === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(want, 5);
  });
});

describe('mediaTypeFromUrl', () => {
  it.each([
    ['https://v3.fal.media/files/x/out.mp4', 'video/mp4'],
    ['https://replicate.delivery/x/out.webp?sig=1', 'image/webp'],
    ['https://example.com/files/abc:download?alt=media', 'video/mp4'],
  ])('%s -> %s', (url, type) => {
    expect(mediaTypeFromUrl(url, 'video/mp4')).toBe(type);
  });
});
