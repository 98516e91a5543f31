/** A prompt containing this marker makes every provider fake answer with its own content-policy refusal. */
export const FAKE_REFUSE_MARKER = '[fake:refuse]';

/** Tokens as the fakes count them: words (a real tokenizer is not needed to test the mapping of counts). */
export function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The fakes' deterministic answer: the prompt echoed, cut to `maxTokens` words. */
export function echoReply(prompt: string, maxTokens: number): { text: string; tokens: number; truncated: boolean } {
  const words = `Echo: ${prompt}`.split(/\s+/).filter(Boolean);
  const kept = words.slice(0, Math.max(1, maxTokens));
  return { text: kept.join(' '), tokens: kept.length, truncated: kept.length < words.length };
}

/** A short, unique-enough id with a provider's prefix (`chatcmpl-`, `msg_`, `req_`). */
export function fakeId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value of a JSON schema: required and listed properties filled, strings with `text`, numbers 1. */
export function fillSchema(schema: unknown, text: string): unknown {
  if (!isRecord(schema)) return text;
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
  const declared = schema['type'];
  const type = typeof declared === 'string' ? declared.toLowerCase() : isRecord(schema['properties']) ? 'object' : 'string';
  if (type === 'object') {
    const props = isRecord(schema['properties']) ? schema['properties'] : {};
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fillSchema(v, text)]));
  }
  if (type === 'array') return [fillSchema(schema['items'], text)];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  return text;
}
