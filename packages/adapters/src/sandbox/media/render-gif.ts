import * as gifencModule from 'gifenc';

// gifenc ships CommonJS (Node: only a default export) and an ESM build (bundlers: named exports).
const loaded: unknown = gifencModule;
const { GIFEncoder } = (typeof (loaded as { GIFEncoder?: unknown }).GIFEncoder === 'function' ? loaded : gifencModule.default) as typeof gifencModule;
import { buildScene, pixelAt, type Rgb } from './scene.js';

const MAX_SIDE = 1024;

/** Index of a colour in the scene palette (gradient is quantized to 32 steps, then each disc colour). */
function paletteFor(top: Rgb, bottom: Rgb, discs: readonly Rgb[]): number[][] {
  const steps: number[][] = [];
  for (let i = 0; i < 32; i++) {
    const t = i / 31;
    steps.push([0, 1, 2].map((c) => Math.round((top[c] ?? 0) * (1 - t) + (bottom[c] ?? 0) * t)));
  }
  return [...steps, ...discs.map((d) => [...d])];
}

export interface GifInput {
  readonly width: number;
  readonly height: number;
  readonly seed: number;
  readonly prompt: string;
  readonly frames: number;
  readonly fps: number;
}

/** Throws a RangeError for sizes or frame counts the renderer refuses. */
export function checkGifInput(input: GifInput): void {
  for (const v of [input.width, input.height]) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_SIDE) throw new RangeError(`video sides must be integers 1..${MAX_SIDE}, got ${v}`);
  }
  if (!Number.isInteger(input.frames) || input.frames < 1 || input.frames > 2_000) throw new RangeError(`frames must be 1..2000, got ${input.frames}`);
}

/**
 * A looping animated GIF in which the scene's discs travel across the frame; same input, same bytes.
 * CPU-bound: run it in the render pool (renderAnimatedGif).
 */
export function renderAnimatedGifSync(input: GifInput): Uint8Array {
  checkGifInput(input);
  const { width, height, frames, fps } = input;
  const scene = buildScene(input.seed, input.prompt);
  const palette = paletteFor(scene.top, scene.bottom, scene.shapes.map((s) => s.color));
  const shapeIndex = new Map(scene.shapes.map((s, i) => [s.color.join(','), 32 + i]));
  const gif = GIFEncoder();
  const index = new Uint8Array(width * height);
  for (let f = 0; f < frames; f++) {
    for (let y = 0; y < height; y++) {
      const band = height > 1 ? Math.round((y / (height - 1)) * 31) : 0;
      for (let x = 0; x < width; x++) {
        const rgb = pixelAt(scene, x, y, width, height, f);
        index[y * width + x] = shapeIndex.get(rgb.join(',')) ?? band;
      }
    }
    gif.writeFrame(index, width, height, f === 0 ? { palette, delay: Math.round(1000 / fps), repeat: 0 } : { delay: Math.round(1000 / fps) });
  }
  gif.finish();
  return gif.bytes();
}
