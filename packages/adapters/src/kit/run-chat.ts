import './quiet-sdk-warnings.js';
import { generateText, type LanguageModel } from 'ai';
import { upstreamRequestId, UpstreamError, type GenerationResult, type TaskWarning } from '@gengate/core/adapter';
import type { ChatSettings } from './call-settings.js';
import { toUpstreamError, type SdkErrorContext } from './sdk-error.js';
import { taskWarningsFrom } from './warnings.js';

export interface ChatRunContext extends SdkErrorContext {
  readonly abortSignal: AbortSignal;
  /** Warnings of the gengate mapping, reported with the SDK's own. */
  readonly warnings: readonly TaskWarning[];
  /** The upstream's own statement of the cost, in micro-USD, read from the raw response body (OpenRouter's usage.cost). */
  readonly reportedCost?: (body: unknown) => number | undefined;
}

/**
 * One chat call through the AI SDK: no SDK retries (the worker retries as new attempts after a backoff
 * within the deadline), the answer as a text file, token usage, finish reason and request id.
 */
export async function runChat(model: LanguageModel, s: ChatSettings, ctx: ChatRunContext): Promise<GenerationResult> {
  let result: Awaited<ReturnType<typeof generateText>>;
  try {
    result = await generateText({
      model,
      prompt: s.prompt,
      ...(s.system !== undefined ? { system: s.system } : {}),
      maxOutputTokens: s.maxOutputTokens,
      ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
      ...(s.topP !== undefined ? { topP: s.topP } : {}),
      ...(s.seed !== undefined ? { seed: s.seed } : {}),
      ...(s.frequencyPenalty !== undefined ? { frequencyPenalty: s.frequencyPenalty } : {}),
      ...(s.presencePenalty !== undefined ? { presencePenalty: s.presencePenalty } : {}),
      ...(s.stopSequences !== undefined ? { stopSequences: s.stopSequences } : {}),
      ...(s.providerOptions !== undefined ? { providerOptions: s.providerOptions } : {}),
      ...(ctx.reportedCost ? { include: { responseBody: true } } : {}),
      maxRetries: 0,
      abortSignal: ctx.abortSignal,
    });
  } catch (error) {
    throw toUpstreamError(error, ctx);
  }
  const response = result.response;
  const requestId = (response.headers ? upstreamRequestId(response.headers) : null) ?? response.id;
  const finishReason = result.rawFinishReason ?? result.finishReason;
  if (result.finishReason === 'content-filter' && result.text.length === 0) {
    throw new UpstreamError(`the answer was blocked by the provider's safety filter (finish reason ${finishReason})`, {
      kind: 'content_policy',
      requestId,
    });
  }
  if (result.text.length === 0) {
    throw new UpstreamError(`the provider returned no text (finish reason ${finishReason})`, { kind: 'bad_output', requestId });
  }
  const warnings = [...ctx.warnings, ...taskWarningsFrom(result.warnings, 'chat')];
  if (result.finishReason === 'content-filter') {
    warnings.push({ param: 'prompt', message: `The provider's safety filter cut the answer short (finish reason ${finishReason}).` });
  }
  const { inputTokens, outputTokens, inputTokenDetails } = result.usage;
  // Prompt-cache reads and writes (part of inputTokens) are priced apart where the model has cached prices.
  const cache = { ...(inputTokenDetails.cacheReadTokens ? { cacheReadTokens: inputTokenDetails.cacheReadTokens } : {}), ...(inputTokenDetails.cacheWriteTokens ? { cacheWriteTokens: inputTokenDetails.cacheWriteTokens } : {}) };
  const reported = ctx.reportedCost?.(response.body);
  return {
    files: [{ kind: 'bytes', data: new TextEncoder().encode(result.text), mediaType: 'text/plain' }],
    ...(inputTokens !== undefined && outputTokens !== undefined ? { usage: { inputTokens, outputTokens, ...cache } } : {}),
    ...(reported !== undefined ? { reportedCostMicroUsd: reported } : {}),
    warnings,
    metadata: { requestId, finishReason, model: response.modelId },
  };
}
