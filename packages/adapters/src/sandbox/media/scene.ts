import { createRandom, hashString } from './seeded-random.js';

export type Rgb = readonly [number, number, number];

export interface Shape {
  readonly cx: number;
  readonly cy: number;
  readonly r: number;
  readonly color: Rgb;
  /** Travel per frame as a fraction of the width (video only). */
  readonly vx: number;
}

/** The deterministic content of a picture: two gradient colours and a few discs, from seed and prompt. */
export interface Scene {
  readonly top: Rgb;
  readonly bottom: Rgb;
  readonly shapes: readonly Shape[];
}

function color(rnd: () => number): Rgb {
  return [Math.floor(rnd() * 256), Math.floor(rnd() * 256), Math.floor(rnd() * 256)];
}

export function buildScene(seed: number, prompt: string): Scene {
  const rnd = createRandom((seed ^ hashString(prompt)) >>> 0);
  const count = 3 + Math.floor(rnd() * 4);
  const shapes: Shape[] = [];
  for (let i = 0; i < count; i++) {
    shapes.push({ cx: rnd(), cy: rnd(), r: 0.05 + rnd() * 0.2, color: color(rnd), vx: (rnd() - 0.5) * 0.05 });
  }
  return { top: color(rnd), bottom: color(rnd), shapes };
}

/** Colour of pixel (x, y) of the scene at a frame (frame 0 for still images). */
export function pixelAt(scene: Scene, x: number, y: number, width: number, height: number, frame: number): Rgb {
  const t = height > 1 ? y / (height - 1) : 0;
  let rgb: Rgb = [
    Math.round(scene.top[0] * (1 - t) + scene.bottom[0] * t),
    Math.round(scene.top[1] * (1 - t) + scene.bottom[1] * t),
    Math.round(scene.top[2] * (1 - t) + scene.bottom[2] * t),
  ];
  const side = Math.min(width, height);
  for (const s of scene.shapes) {
    const cx = (((s.cx + s.vx * frame) % 1) + 1) % 1;
    const dx = x - cx * width;
    const dy = y - s.cy * height;
    if (dx * dx + dy * dy <= (s.r * side) ** 2) rgb = s.color;
  }
  return rgb;
}
