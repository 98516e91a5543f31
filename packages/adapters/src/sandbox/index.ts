export { SandboxAdapter, createSandboxAdapter, DEFAULT_SANDBOX_LATENCY, type SandboxAdapterOptions, type SandboxLatency } from './sandbox-adapter.js';
export { SANDBOX_MODELS, SANDBOX_FAIL_MARKER, SANDBOX_DROP_MARKER } from './sandbox-models.js';
export { SandboxLanguageModel } from './sandbox-language-model.js';
