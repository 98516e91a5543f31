import { SpanKind, type Tracer } from '@opentelemetry/api';
import type { AcceptedProviderAdapter, JsonValue } from '@gengate/core';
import type { AdapterCall, GenerationResult, LongRunningStatus, ProviderAdapter, StartedJob } from '@gengate/core/adapter';
import { adaptAcceptedAdapter } from '@gengate/core/internal';
import { ATTR, requestAttributes, resultAttributes } from './gen-ai-attributes.js';
import { attemptSpan, inSpan } from './span-helpers.js';

/** The conventions' span name: `{gen_ai.operation.name} {gen_ai.request.model}`. */
const spanName = (call: AdapterCall) => `${call.model.modality === 'chat' ? 'chat' : 'generate_content'} ${call.model.id}`;

/**
 * An adapter whose upstream calls are CLIENT spans with the GenAI attributes (the AI SDK's own spans, when
 * its telemetry is registered, nest under them). Each call also names its route on the job's attempt span.
 * Every other member is the adapter's own, its methods bound to it (`#private` state stays its own).
 */
export function tracedAdapter(accepted: AcceptedProviderAdapter, tracer: Tracer): ProviderAdapter {
  const a = adaptAcceptedAdapter(accepted);
  const traced = <T>(call: AdapterCall, operation: string, fn: () => Promise<T>, onResult?: (r: T) => GenerationResult | null) => {
    const attributes = requestAttributes(call, operation);
    attemptSpan()?.setAttributes({ [ATTR.route]: call.model.id, [ATTR.providerName]: call.model.provider, [ATTR.requestModel]: call.model.id });
    return inSpan(tracer, spanName(call), { kind: SpanKind.CLIENT, attributes }, fn, onResult ? (_s, r) => {
      const result = onResult(r);
      return result ? resultAttributes(call, result) : {};
    } : undefined);
  };
  const { generate, start, status, cancel } = a;
  // Each member read by name (a getter on an adapter class is read, not lost as a spread would lose it).
  return {
    specificationVersion: a.specificationVersion,
    providerId: a.providerId,
    models: a.models,
    // Read through at each use, as the registry reads the adapter's own (it may change, e.g. a key configured later).
    get availability() {
      return a.availability;
    },
    get trustedOrigins() {
      return a.trustedOrigins;
    },
    isLongRunning: (modelId) => a.isLongRunning(modelId),
    ...(a.languageModel ? { languageModel: a.languageModel.bind(a) } : {}),
    ...(a.upstreamError ? { upstreamError: a.upstreamError.bind(a) } : {}),
    ...(a.pollDelayMs ? { pollDelayMs: a.pollDelayMs.bind(a) } : {}),
    ...(a.verifyWebhook ? { verifyWebhook: a.verifyWebhook.bind(a) } : {}),
    ...(a.readWebhook ? { readWebhook: a.readWebhook.bind(a) } : {}),
    ...(a.jobIdOf ? { jobIdOf: a.jobIdOf.bind(a) } : {}),
    ...(generate ? { generate: (call: AdapterCall) => traced(call, 'generate', () => generate.call(a, call), (r: GenerationResult) => r) } : {}),
    ...(start ? { start: (call: AdapterCall) => traced<StartedJob>(call, 'start', () => start.call(a, call)) } : {}),
    ...(status
      ? {
          status: (handle: JsonValue, call: AdapterCall) =>
            traced<LongRunningStatus>(call, 'status', () => status.call(a, handle, call), (s) => (s.state === 'succeeded' ? s.result : null)),
        }
      : {}),
    ...(cancel ? { cancel: (handle: JsonValue, call: AdapterCall) => traced<void>(call, 'cancel', () => cancel.call(a, handle, call)) } : {}),
  };
}
