/**
 * Upper bound of the tokens a text can bill: a token is never shorter than one UTF-8 byte (the byte-level
 * tokenizers of OpenAI, Anthropic and Google), so a text has at most as many tokens as it has bytes.
 * The one rule every hold that counts input tokens uses (chat prompts, image prompts).
 */
export function maxInputTokens(text: string): number {
  return new TextEncoder().encode(text).length;
}
