/** Shapes of credentials that an upstream error text may echo (OpenAI, Anthropic, Google, Replicate, fal, bearer tokens, URL keys). */
const KEY_SHAPES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_*.-]{6,}/g,
  /\bAIza[0-9A-Za-z_-]{10,}/g,
  /\br8_[A-Za-z0-9]{10,}/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:[0-9a-f]{16,}\b/gi,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /([?&](?:key|api_key|apikey|token|access_token)=)[^&\s"']+/gi,
];

/**
 * Removes credentials from a text before it reaches a task, a log line or an HTTP answer: every known
 * secret value verbatim, and anything shaped like a provider key.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 6) out = out.split(s).join('[redacted]');
  for (const shape of KEY_SHAPES) out = out.replace(shape, (m, prefix: unknown) => (typeof prefix === 'string' && m.startsWith(prefix) ? `${prefix}[redacted]` : '[redacted]'));
  return out;
}
