import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { checkGifInput, type GifInput } from './render-gif.js';
import { checkPngInput, type PngInput } from './render-png.js';
import type { RenderTask } from './render-worker.js';

let pool: Piscina<RenderTask, Uint8Array> | null = null;

/**
 * The worker file next to this one: `render-worker.js` in the compiled package, `render-worker.ts` when
 * the sources run directly (vitest, `npm start` through tsx). A TypeScript worker is loaded through tsx,
 * which the worker thread does not inherit from vitest, so it is passed explicitly.
 */
function workerOptions(): { filename: string; execArgv: string[] } {
  const fromSources = import.meta.url.endsWith('.ts');
  const filename = fileURLToPath(new URL(fromSources ? './render-worker.ts' : './render-worker.js', import.meta.url));
  return { filename, execArgv: fromSources ? ['--import', import.meta.resolve('tsx')] : [] };
}

/**
 * The sandbox's render threads (piscina): PNG and GIF encoding is CPU-bound and would otherwise stall
 * the event loop (HTTP, pg-boss heartbeats) for seconds per video. One thread fewer than the cores,
 * at least one, at a lower scheduling priority; threads start on first use, and idle ones neither keep
 * the process alive nor last long.
 */
function renderPool(): Piscina<RenderTask, Uint8Array> {
  pool ??= new Piscina<RenderTask, Uint8Array>({
    ...workerOptions(),
    minThreads: 0,
    maxThreads: Math.max(1, availableParallelism() - 1),
    idleTimeout: 30_000,
    // Renders yield the CPU to the event loop's thread (HTTP, queue heartbeats) where the OS allows it.
    niceIncrement: 10,
  });
  return pool;
}

/** An RGBA PNG of exactly width x height, rendered off the event loop; same input, same bytes. */
export async function renderPng(input: PngInput): Promise<Uint8Array> {
  checkPngInput(input);
  return new Uint8Array(await renderPool().run({ kind: 'png', input }));
}

/** A looping animated GIF, rendered off the event loop; same input, same bytes. */
export async function renderAnimatedGif(input: GifInput): Promise<Uint8Array> {
  checkGifInput(input);
  return new Uint8Array(await renderPool().run({ kind: 'gif', input }));
}

/** Ends the render threads (a host's shutdown; the next render starts them again). */
export async function closeRenderPool(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.destroy();
}
