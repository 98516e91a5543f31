export { hashString, createRandom } from './seeded-random.js';
export { renderPng } from './render-png.js';
export { renderAnimatedGif } from './render-gif.js';
export { dimensionsFor } from './dimensions.js';
