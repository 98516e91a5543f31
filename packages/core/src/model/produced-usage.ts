/**
 * What a generation produced and consumed, as the adapter reports it from the upstream's answer.
 * Chat: input and output tokens. Images: images produced and, for token-billed image models (GPT Image,
 * Gemini image), the input tokens (split into text and image where the upstream says) and the output
 * image tokens. Video: seconds produced.
 */
export interface ProducedUsage {
  /** Chat: input tokens. Image models: every input token, when the upstream does not split them. */
  readonly inputTokens?: number;
  /** Chat: the input tokens read from the provider's prompt cache (part of inputTokens). */
  readonly cacheReadTokens?: number;
  /** Chat: the input tokens written to the provider's prompt cache (part of inputTokens). */
  readonly cacheWriteTokens?: number;
  /** Chat: output tokens. Image models: output image tokens. */
  readonly outputTokens?: number;
  /** Image models: the prompt's text tokens (OpenAI `usage.input_tokens_details.text_tokens`). */
  readonly inputTextTokens?: number;
  /** Image models: the reference images' tokens (OpenAI `usage.input_tokens_details.image_tokens`). */
  readonly inputImageTokens?: number;
  readonly images?: number;
  readonly videoSeconds?: number;
}
