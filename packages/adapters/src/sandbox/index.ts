export { SandboxAdapter, createSandboxAdapter, DEFAULT_SANDBOX_LATENCY, type SandboxAdapterOptions, type SandboxLatency } from './sandbox-adapter.js';
export { SANDBOX_MODELS, SANDBOX_FAIL_MARKER } from './sandbox-models.js';
