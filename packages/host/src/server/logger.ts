import pino, { type DestinationStream, type Logger } from 'pino';

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

export function createLogger(opts: { level: string; destination?: DestinationStream }): Logger {
  const options = { level: opts.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
