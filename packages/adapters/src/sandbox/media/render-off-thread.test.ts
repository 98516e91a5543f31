import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAnimatedGifSync } from './render-gif.js';
import { renderPngSync } from './render-png.js';
import { renderAnimatedGif, renderPng } from './index.js';

// The renderers as this (the event loop's) thread sees them: counted, still working. The pool's threads load
// their own copies, which these spies do not see: a call counted here is a render on the event loop.
vi.mock('./render-png.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./render-png.js')>();
  return { ...real, renderPngSync: vi.fn(real.renderPngSync) };
});
vi.mock('./render-gif.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./render-gif.js')>();
  return { ...real, renderAnimatedGifSync: vi.fn(real.renderAnimatedGifSync) };
});

afterEach(() => {
  vi.mocked(renderPngSync).mockClear();
  vi.mocked(renderAnimatedGifSync).mockClear();
});

describe('sandbox rendering runs off the event loop', () => {
  // How long the event loop stalls meanwhile is a figure of `npm run bench` (render_stall) and `npm run bench:healthz`.
  it('renders a video and a 2048 px image on the pool threads: the event loop thread renders nothing', { timeout: 60_000 }, async () => {
    const [gif, png] = await Promise.all([
      renderAnimatedGif({ width: 480, height: 270, seed: 7, prompt: 'a long take', frames: 80, fps: 8 }),
      renderPng({ width: 2048, height: 2048, seed: 7, prompt: 'big' }),
    ]);
    expect(gif.subarray(0, 6)).toEqual(new TextEncoder().encode('GIF89a'));
    expect(png.subarray(1, 4)).toEqual(new TextEncoder().encode('PNG'));
    expect(renderAnimatedGifSync).not.toHaveBeenCalled();
    expect(renderPngSync).not.toHaveBeenCalled();
  });

  it('renders the same bytes as the inline renderer did (digests taken before the move)', async () => {
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    expect(sha(await renderPng({ width: 64, height: 36, seed: 42, prompt: 'fixed' }))).toBe('20a0f952904be250fa8b7bd7fa4d3a84b0377c3af156beb8bc7a11891bf189b7');
    expect(sha(await renderAnimatedGif({ width: 48, height: 27, seed: 42, prompt: 'fixed', frames: 5, fps: 8 }))).toBe(
      '1edfc8c910e81554f36495c728d1412d4f4d7a0194c0de99c24ebe7d66f3b14d',
    );
    expect(renderPngSync).not.toHaveBeenCalled();
    expect(renderAnimatedGifSync).not.toHaveBeenCalled();
  });

  it('(the spies see an inline render) the synchronous renderers called on this thread are counted', () => {
    renderPngSync({ width: 8, height: 8, seed: 1, prompt: 'inline' });
    expect(renderPngSync).toHaveBeenCalledTimes(1);
  });

  it('rejects invalid sizes with a RangeError, as before', async () => {
    await expect(renderPng({ width: 0, height: 2, seed: 1, prompt: '' })).rejects.toThrow(RangeError);
    await expect(renderAnimatedGif({ width: 2, height: 2, seed: 1, prompt: '', frames: 0, fps: 8 })).rejects.toThrow(RangeError);
  });
});
