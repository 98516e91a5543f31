export { sizeForAspectRatio as dimensionsFor } from '@gengate/core/adapter';
