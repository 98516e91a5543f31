export { hashString, createRandom } from './seeded-random.js';
export { renderPng, renderAnimatedGif, closeRenderPool } from './render-pool.js';
export { renderPngSync, type PngInput } from './render-png.js';
export { renderAnimatedGifSync, type GifInput } from './render-gif.js';
export { dimensionsFor } from './dimensions.js';
