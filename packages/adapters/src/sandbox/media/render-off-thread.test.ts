import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderAnimatedGif, renderPng } from './index.js';

/** Largest gap between ticks of a 5 ms interval while fn runs: how long the event loop was blocked. */
async function longestStall(fn: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  try {
    await fn();
    const now = performance.now();
    return Math.max(worst, now - last);
  } finally {
    clearInterval(tick);
  }
}

describe('sandbox rendering runs off the event loop', () => {
  it('keeps the event loop answering while a 1080p 10 s video and a 2048 px image render', { timeout: 60_000 }, async () => {
    // Warm the pool (thread start and module loading are not rendering).
    await renderPng({ width: 8, height: 8, seed: 1, prompt: 'warm' });
    const stall = await longestStall(() =>
      Promise.all([
        renderAnimatedGif({ width: 480, height: 270, seed: 7, prompt: 'a long take', frames: 80, fps: 8 }),
        renderPng({ width: 2048, height: 2048, seed: 7, prompt: 'big' }),
      ]),
    );
    // A generous bound: rendering inline blocks for seconds; the p99 figure comes from npm run bench:healthz.
    expect(stall).toBeLessThan(250);
  });

  it('renders the same bytes as the inline renderer did (digests taken before the move)', async () => {
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    expect(sha(await renderPng({ width: 64, height: 36, seed: 42, prompt: 'fixed' }))).toBe('20a0f952904be250fa8b7bd7fa4d3a84b0377c3af156beb8bc7a11891bf189b7');
    expect(sha(await renderAnimatedGif({ width: 48, height: 27, seed: 42, prompt: 'fixed', frames: 5, fps: 8 }))).toBe(
      '1edfc8c910e81554f36495c728d1412d4f4d7a0194c0de99c24ebe7d66f3b14d',
    );
  });

  it('rejects invalid sizes with a RangeError, as before', async () => {
    await expect(renderPng({ width: 0, height: 2, seed: 1, prompt: '' })).rejects.toThrow(RangeError);
    await expect(renderAnimatedGif({ width: 2, height: 2, seed: 1, prompt: '', frames: 0, fps: 8 })).rejects.toThrow(RangeError);
  });
});
