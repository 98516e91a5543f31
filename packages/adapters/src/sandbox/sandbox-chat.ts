import type { NormalizedChatRequest, TaskWarning, TokenUsage } from '@gengate/core/adapter';

/** Sandbox tokens: whitespace-separated words (at least one). */
export function countTokens(text: string): number {
  return Math.max(1, text.split(/\s+/).filter(Boolean).length);
}

const FILLER = ['The', 'sandbox', 'model', 'runs', 'offline', 'and', 'answers', 'deterministically', 'for', 'testing.'];

/** The words of the deterministic reply to a prompt: at most maxTokens, padded to min(maxTokens, 24). */
export function replyWords(prompt: string, maxTokens: number, lead = 'Sandbox reply to:'): string[] {
  const words = [...lead.split(' '), ...prompt.split(/\s+/).filter(Boolean)];
  for (let i = 0; words.length < Math.min(maxTokens, 24); i++) words.push(FILLER[i % FILLER.length] ?? '');
  return words.slice(0, maxTokens);
}

/** A deterministic reply of at most maxTokens words, and its usage. */
export function sandboxReply(req: NormalizedChatRequest): { text: string; usage: TokenUsage } {
  const out = replyWords(req.prompt, req.maxTokens);
  const text = out.join(' ');
  const input = countTokens(req.prompt) + (req.system === null ? 0 : countTokens(req.system));
  return { text, usage: { inputTokens: input, outputTokens: out.length } };
}

/** The sandbox is deterministic: sampling parameters are accepted but change nothing, and it says so. */
export function sandboxChatWarnings(req: NormalizedChatRequest): TaskWarning[] {
  const w: TaskWarning[] = [];
  if (req.temperature !== null) w.push({ param: 'llm_params.temperature', message: 'The sandbox is deterministic; temperature has no effect.' });
  if (req.topP !== null) w.push({ param: 'llm_params.top_p', message: 'The sandbox is deterministic; top_p has no effect.' });
  if (req.system !== null) w.push({ param: 'llm_params.system', message: 'The sandbox counts the system instruction as input tokens but does not follow it.' });
  return w;
}
