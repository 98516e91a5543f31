import { PNG } from 'pngjs';
import { buildScene, pixelAt } from './scene.js';

const MAX_SIDE = 4096;

/** An RGBA PNG of exactly width x height; same input, same bytes. */
export function renderPng(input: { width: number; height: number; seed: number; prompt: string }): Uint8Array {
  const { width, height } = input;
  for (const v of [width, height]) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_SIDE) throw new RangeError(`image sides must be integers 1..${MAX_SIDE}, got ${v}`);
  }
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
