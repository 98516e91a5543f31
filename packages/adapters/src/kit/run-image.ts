import './quiet-sdk-warnings.js';
import { generateImage, NoImageGeneratedError, type ImageModel } from 'ai';
import { upstreamRequestId, UpstreamError, type GenerationResult, type ProducedUsage, type TaskWarning } from '@gengate/core/adapter';
import type { ImageSettings } from './call-settings.js';
import { toUpstreamError, type SdkErrorContext } from './sdk-error.js';
import { taskWarningsFrom } from './warnings.js';

export interface ImageRunContext extends SdkErrorContext {
  readonly abortSignal: AbortSignal;
  readonly warnings: readonly TaskWarning[];
  /**
   * Why the provider produced no image, when it says it blocked the prompt (Gemini's finish reasons
   * IMAGE_SAFETY, PROHIBITED_CONTENT...): read from the calls' provider metadata. Null: not a block.
   */
  readonly blockedReason?: (providerMetadata: readonly unknown[]) => string | null;
  /**
   * The input tokens split into text and image, where the provider reports the split in its metadata
   * (OpenAI's `usage.input_tokens_details`, which the SDK hands on per image). Null: not reported.
   */
  readonly inputTokenSplit?: (providerMetadata: unknown) => { readonly text: number; readonly image: number } | null;
}

/**
 * What the call produced and consumed: the images, and the tokens the upstream reported (the SDK sums
 * them over its calls), which a token-billed image model is charged by.
 */
function usageOf(result: Awaited<ReturnType<typeof generateImage>>, ctx: ImageRunContext): ProducedUsage {
  const { inputTokens, outputTokens } = result.usage;
  const split = ctx.inputTokenSplit?.(result.providerMetadata) ?? null;
  return {
    images: result.images.length,
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    ...(split ? { inputTextTokens: split.text, inputImageTokens: split.image } : {}),
  };
}

/** One image call through the AI SDK: no SDK retries, images as bytes, images produced as usage. */
export async function runImage(model: ImageModel, s: ImageSettings, ctx: ImageRunContext): Promise<GenerationResult> {
  let result: Awaited<ReturnType<typeof generateImage>>;
  try {
    result = await generateImage({
      model,
      prompt: s.prompt,
      n: s.n,
      ...(s.size !== undefined ? { size: s.size } : {}),
      ...(s.aspectRatio !== undefined ? { aspectRatio: s.aspectRatio } : {}),
      ...(s.seed !== undefined ? { seed: s.seed } : {}),
      ...(s.providerOptions !== undefined ? { providerOptions: s.providerOptions } : {}),
      maxRetries: 0,
      abortSignal: ctx.abortSignal,
    });
  } catch (error) {
    if (NoImageGeneratedError.isInstance(error) && ctx.blockedReason) {
      const reason = ctx.blockedReason((error.calls ?? []).map((c) => c.providerMetadata));
      const headers = error.responses?.[0]?.headers;
      if (reason) {
        throw new UpstreamError(`the image was blocked by the provider's safety filter (${reason})`, {
          kind: 'content_policy',
          requestId: headers ? upstreamRequestId(headers) : null,
        });
      }
    }
    throw toUpstreamError(error, ctx);
  }
  const first = result.responses[0];
  const requestId = first?.headers ? upstreamRequestId(first.headers) : null;
  const warnings = [...ctx.warnings, ...taskWarningsFrom(result.warnings, 'image')];
  if (result.images.length < s.n) {
    warnings.push({ param: 'image_params.n', message: `The provider returned ${result.images.length} of the ${s.n} images asked for; only those are charged.` });
  }
  return {
    files: result.images.map((img) => ({ kind: 'bytes' as const, data: img.uint8Array, mediaType: img.mediaType })),
    usage: usageOf(result, ctx),
    warnings,
    metadata: { ...(requestId ? { requestId } : {}), ...(first?.modelId ? { model: first.modelId } : {}) },
  };
}
