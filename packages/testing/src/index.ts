/**
 * @gengate/testing: what an ADAPTER author needs: the adapter conformance suite (and its checks), fakes of
 * the providers' documented HTTP APIs (FakeUpstream to write your own, FakeJobBook and fakeMp4 for
 * long-running video APIs), the kit's call helpers, and an in-memory gengate for worker-retry tests. It
 * depends on @gengate/core only. What a host implementer needs (HTTP and store suites, a test database,
 * SMTP capture, a fake Stripe) is `@gengate/testing/host`.
 */
export { describeAdapterConformance, runAdapterCall } from './conformance/adapter-suite.js';
export type { AdapterConformanceOptions, AdapterSuiteSection } from './conformance/adapter-suite.js';
export { createMemoryGengate, MEMORY_GENGATE_BASE_URL } from './fakes/memory-gengate.js';
export type { MemoryGengate, MemoryGengateOptions } from './fakes/memory-gengate.js';
export { FakeUpstream } from './fakes/fake-upstream.js';
export type { FakeFault, FakeHandler, FakeReply, FakeRoute, RecordedCall } from './fakes/fake-upstream.js';
export { minimalRequest, parameterProbes, providerParamProbes } from './conformance/adapter/adapter-requests.js';
export type { ParameterProbe } from './conformance/adapter/adapter-requests.js';
export { kitCall, kitReadInput } from './conformance/adapter/adapter-call.js';
export { colourOf, pngSize, solidPng } from './fakes/png.js';
export { countTokens, echoReply, FAKE_REFUSE_MARKER, fakeId, isRecord } from './fakes/fake-text.js';
export { openAIError, openAIFaults, openAIRoutes, startFakeOpenAI } from './fakes/openai/fake-openai.js';
export type { FakeOpenAIOptions } from './fakes/openai/fake-openai.js';
export { describeParameterTable } from './conformance/adapter/parameter-table.js';
export type { ParameterOutcome, ParameterRow, ParameterTableOptions } from './conformance/adapter/parameter-table.js';
export { checkCancel, checkResume } from './conformance/adapter/lifecycle-checks.js';
export type { CheckOutcome, LifecycleCheckOptions } from './conformance/adapter/lifecycle-checks.js';
export { describeWorkerRetry } from './conformance/adapter/worker-retry.js';
export type { WorkerRetryOptions } from './conformance/adapter/worker-retry.js';
export { describeOneRequestPerAttempt } from './conformance/adapter/one-request-per-attempt.js';
export type { OneRequestPerAttemptOptions } from './conformance/adapter/one-request-per-attempt.js';
export { anthropicError, anthropicFaults, anthropicRoutes, startFakeAnthropic } from './fakes/anthropic/fake-anthropic.js';
export { GEMINI_IMAGE_SIZES_1K, googleError, googleFaults, googleRoutes, startFakeGoogle } from './fakes/google/fake-google.js';
export { FAKE_PNG, fakeMp4 } from './fakes/video/fake-media.js';
export { FAKE_FILE_PATH, FakeJobBook } from './fakes/video/fake-jobs.js';
export type { FakeJob, FakeJobBookOptions, FakeJobFailure, FakeJobPhase, FakeWebhookDelivery } from './fakes/video/fake-jobs.js';
export { FakeFal, falAppId } from './fakes/fal/fake-fal.js';
export type { FakeFalOptions } from './fakes/fal/fake-fal.js';
export { FakeReplicate } from './fakes/replicate/fake-replicate.js';
export type { FakeReplicateOptions } from './fakes/replicate/fake-replicate.js';
export { FakeRunway, RUNWAY_API_VERSION } from './fakes/runway/fake-runway.js';
export { FakeVeo } from './fakes/google-veo/fake-veo.js';
export { parseResponsesSse, validateResponsesStream } from './conformance/responses/responses-stream-validator.js';
