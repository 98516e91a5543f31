export {
  createRunwayAdapter,
  RUNWAY_API_VERSION,
  RUNWAY_DEFAULT_BASE_URL,
  RUNWAY_SECRET_SETTING,
  RunwayAdapter,
} from './runway-adapter.js';
export type { RunwayAdapterOptions } from './runway-adapter.js';
export { RUNWAY_MODELS } from './runway-models.js';
export type { RunwayModel } from './runway-models.js';
export { classifyRunwayFailure, runwayTaskRequest } from './runway-mapping.js';
export type { RunwayTaskRequest } from './runway-mapping.js';
