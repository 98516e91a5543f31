import type { Attributes } from '@opentelemetry/api';
import type { ModelDescriptor, ProducedUsage } from '@gengate/core';
import type { AdapterCall, GenerationResult } from '@gengate/core/adapter';

/**
 * The GenAI semantic conventions' attributes (opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/) and
 * gengate's own, as written on gengate's spans. `gen_ai.operation.name` takes the conventions' well-known
 * values: `chat` for a chat model, `generate_content` (multimodal content generation) for image and video.
 */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  errorType: 'error.type',
  taskId: 'gengate.task_id',
  userId: 'gengate.user_id',
  /** The catalog model id an attempt called (with routes, the route's model id). */
  route: 'gengate.route',
  modality: 'gengate.modality',
  attempt: 'gengate.attempt',
  checkNumber: 'gengate.check_number',
  /** The adapter method: generate, start, status or cancel. */
  upstreamOperation: 'gengate.upstream.operation',
  /** Micro-credits: held at intake (`gengate.credits.quoted`), charged at settlement (`gengate.credits`). */
  creditsQuoted: 'gengate.credits.quoted',
  credits: 'gengate.credits',
  costMicroUsd: 'gengate.cost_micro_usd',
  outcome: 'gengate.outcome',
  images: 'gengate.usage.images',
  videoSeconds: 'gengate.usage.video_seconds',
  files: 'gengate.files',
  bytes: 'gengate.bytes',
} as const;

export function operationName(model: ModelDescriptor): 'chat' | 'generate_content' {
  return model.modality === 'chat' ? 'chat' : 'generate_content';
}

/** The attributes known before the upstream call. */
export function requestAttributes(call: AdapterCall, operation: string): Attributes {
  return {
    [ATTR.operationName]: operationName(call.model),
    [ATTR.providerName]: call.model.provider,
    [ATTR.requestModel]: call.model.id,
    [ATTR.taskId]: call.taskId,
    [ATTR.route]: call.model.id,
    [ATTR.modality]: call.model.modality,
    [ATTR.upstreamOperation]: operation,
  };
}

export function usageAttributes(usage: ProducedUsage | undefined): Attributes {
  if (!usage) return {};
  const out: Attributes = {};
  if (usage.inputTokens !== undefined) out[ATTR.inputTokens] = usage.inputTokens;
  if (usage.outputTokens !== undefined) out[ATTR.outputTokens] = usage.outputTokens;
  if (usage.images !== undefined) out[ATTR.images] = usage.images;
  if (usage.videoSeconds !== undefined) out[ATTR.videoSeconds] = usage.videoSeconds;
  return out;
}

/** The attributes of what the upstream answered. */
export function resultAttributes(call: AdapterCall, result: GenerationResult): Attributes {
  const m = result.metadata;
  return {
    [ATTR.responseModel]: m?.model ?? call.model.id,
    ...(m?.requestId !== undefined ? { [ATTR.responseId]: m.requestId } : {}),
    ...(m?.finishReason !== undefined ? { [ATTR.finishReasons]: [m.finishReason] } : {}),
    [ATTR.files]: result.files.length,
    ...usageAttributes(result.usage),
  };
}
