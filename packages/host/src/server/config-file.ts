import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './config-error.js';

/** The values of a GENGATE_CONFIG_FILE (a JSON object of strings, numbers and booleans), as strings. */
export function fileValues(path: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    // Not err.message: a JSON syntax error quotes the text around it, which may be a secret.
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(`GENGATE_CONFIG_FILE: cannot read ${path} as JSON (${code ?? 'not valid JSON'})`);
  }
  const obj = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).safeParse(parsed);
  if (!obj.success) throw new ConfigError(`GENGATE_CONFIG_FILE: ${path} must be a JSON object of strings, numbers and booleans`);
  return Object.fromEntries(Object.entries(obj.data).map(([k, v]) => [k, String(v)]));
}
