import { closeRenderPool, renderAnimatedGif, renderAnimatedGifSync, renderPng, renderPngSync } from '../../packages/adapters/src/sandbox/media/index.js';

/**
 * The longest event-loop stall while the sandbox renders a 480x270 80-frame GIF and a 2048 px PNG:
 * on its render threads (what the sandbox does) and inline on the event loop (the anchor, same run).
 * Measured as the largest gap between ticks of a 5 ms interval. Was a bound in a unit test
 * (render-off-thread.test.ts), which now checks that the event loop thread renders nothing.
 */
export async function measureRenderStall(): Promise<{ offThreadMs: number; inlineMs: number }> {
  const gif = { width: 480, height: 270, seed: 7, prompt: 'a long take', frames: 80, fps: 8 };
  const png = { width: 2048, height: 2048, seed: 7, prompt: 'big' };
  await renderPng({ width: 8, height: 8, seed: 1, prompt: 'warm' }); // thread start and module loading are not rendering
  const offThreadMs = await longestStall(() => Promise.all([renderAnimatedGif(gif), renderPng(png)]));
  await closeRenderPool();
  const inlineMs = await longestStall(async () => {
    await new Promise((r) => setTimeout(r, 20)); // let the interval tick once first
    renderAnimatedGifSync(gif);
    renderPngSync(png);
  });
  return { offThreadMs, inlineMs };
}

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
    return Math.max(worst, performance.now() - last);
  } finally {
    clearInterval(tick);
  }
}
