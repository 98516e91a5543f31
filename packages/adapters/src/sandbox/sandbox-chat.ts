import type { NormalizedChatRequest, TokenUsage } from '@gengate/core';

/** Sandbox tokens: whitespace-separated words (at least one). */
export function countTokens(text: string): number {
  return Math.max(1, text.split(/\s+/).filter(Boolean).length);
}

const FILLER = ['The', 'sandbox', 'model', 'runs', 'offline', 'and', 'answers', 'deterministically', 'for', 'testing.'];

/** A deterministic reply of at most maxTokens words, and its usage. */
export function sandboxReply(req: NormalizedChatRequest): { text: string; usage: TokenUsage } {
  const words = ['Sandbox', 'reply', 'to:', ...req.prompt.split(/\s+/).filter(Boolean)];
  for (let i = 0; words.length < Math.min(req.maxTokens, 24); i++) words.push(FILLER[i % FILLER.length] ?? '');
  const out = words.slice(0, req.maxTokens);
  const text = out.join(' ');
  return { text, usage: { inputTokens: countTokens(req.prompt), outputTokens: out.length } };
}
