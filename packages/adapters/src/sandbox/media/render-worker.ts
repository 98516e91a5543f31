import { renderAnimatedGifSync, type GifInput } from './render-gif.js';
import { renderPngSync, type PngInput } from './render-png.js';

export type RenderTask = { readonly kind: 'png'; readonly input: PngInput } | { readonly kind: 'gif'; readonly input: GifInput };

/** The render pool's worker: one task in, the file's bytes out (imports nothing but the renderers). */
export default function render(task: RenderTask): Uint8Array {
  return task.kind === 'png' ? renderPngSync(task.input) : renderAnimatedGifSync(task.input);
}
