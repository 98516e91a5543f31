import { fileValues } from './config-file.js';

/**
 * Values that must never appear in any output: Stripe keys, the S3 secret key and the passwords inside DATABASE_URL and
 * SMTP_URL, whether or not they passed validation. The logger and the CLI's error output mask them.
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  let fromFile: Record<string, string> = {};
  try {
    if (env['GENGATE_CONFIG_FILE']) fromFile = fileValues(env['GENGATE_CONFIG_FILE']);
  } catch {
    // an unreadable file holds no value to mask
  }
  const values: Record<string, string | undefined> = { ...fromFile, ...env };
  const found: string[] = [];
  for (const key of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'S3_SECRET_ACCESS_KEY', 'METRICS_TOKEN']) {
    const v = values[key];
    if (v) found.push(v);
  }
  for (const key of ['DATABASE_URL', 'SMTP_URL']) {
    const v = values[key];
    if (!v) continue;
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@]*?:([^@/?#]*)@/i.exec(v);
    if (m?.[1]) {
      found.push(m[1]);
      try {
        found.push(decodeURIComponent(m[1]));
      } catch {
        // not percent-encoded
      }
    }
  }
  return [...new Set(found.filter((v) => v.length >= 4))];
}

/** Replaces every secret value in a text. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}
