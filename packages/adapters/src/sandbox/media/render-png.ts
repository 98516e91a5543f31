import { PNG } from 'pngjs';
import { buildScene, pixelAt } from './scene.js';

const MAX_SIDE = 4096;

export interface PngInput {
  readonly width: number;
  readonly height: number;
  readonly seed: number;
  readonly prompt: string;
}

/** Throws a RangeError for sizes the renderer refuses. */
export function checkPngInput(input: PngInput): void {
  for (const v of [input.width, input.height]) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_SIDE) throw new RangeError(`image sides must be integers 1..${MAX_SIDE}, got ${v}`);
  }
}

/** An RGBA PNG of exactly width x height; same input, same bytes. CPU-bound: run it in the render pool (renderPng). */
export function renderPngSync(input: PngInput): Uint8Array {
  checkPngInput(input);
  const { width, height } = input;
  const scene = buildScene(input.seed, input.prompt);
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixelAt(scene, x, y, width, height, 0);
      const i = (y * width + x) * 4;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = 255;
    }
  }
  return new Uint8Array(PNG.sync.write(png));
}
