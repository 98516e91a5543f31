import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** Paths never written to a log line: credentials and key secrets. */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'apiKey',
  'api_key',
  'secret',
  '*.apiKey',
  '*.api_key',
  '*.secret',
];

/**
 * A JSON logger. `secrets` are values (Stripe keys, database and SMTP passwords) masked wherever they
 * appear in a line, whatever field or message carries them: a last line of defence behind the
 * redacted paths.
 */
export function createLogger(opts: { level: string; destination?: DestinationStream; secrets?: readonly string[] }): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length > 0);
  const jsonForms = secrets.map((s) => JSON.stringify(s).slice(1, -1)).filter((s, i) => s !== secrets[i]);
  const masked = [...secrets, ...jsonForms];
  const options: LoggerOptions = {
    level: opts.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(masked.length > 0
      ? {
          hooks: {
            streamWrite(line: string): string {
              let out = line;
              for (const s of masked) if (out.includes(s)) out = out.split(s).join('[redacted]');
              return out;
            },
          },
        }
      : {}),
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
