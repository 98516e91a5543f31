import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { CENSOR, censorSecrets } from './log-redaction.js';

/**
 * Paths pino redacts in a child logger's bindings (made once per child): credentials and key secrets.
 * A line's own fields are censored at any depth by censorSecrets (the `log` formatter); pino's wildcard
 * paths (`*.apiKey`) are not used, as they ran the redactor on every value of every line.
 */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'apiKey',
  'api_key',
  'secret',
  'password',
  'cookie',
];

/**
 * A JSON logger. Fields named like a credential or secret (log-redaction.ts) are written as `[redacted]`
 * at any depth of a line's object, and at the top of a child's bindings. `secrets` are values (Stripe keys, database and SMTP passwords) masked wherever they
 * appear in a line, whatever field or message carries them: a last line of defence behind the
 * redacted paths.
 */
export function createLogger(opts: { level: string; destination?: DestinationStream; secrets?: readonly string[] }): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length > 0);
  const jsonForms = secrets.map((s) => JSON.stringify(s).slice(1, -1)).filter((s, i) => s !== secrets[i]);
  const masked = [...secrets, ...jsonForms];
  const options: LoggerOptions = {
    level: opts.level,
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    formatters: { log: censorSecrets },
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
  return pino(options, opts.destination ?? bufferedStdout());
}

/** The standard output stream of this process's loggers, made at the first one's need. */
let stdoutStream: DestinationStream | undefined;

/**
 * Standard output, written in batches: a line waits until 16 KiB are buffered or for at most 100 ms
 * (a write takes up to 64 KiB),
 * so a busy process makes one write system call per batch instead of one per request (measured in
 * docs/benchmarks-history.md). What is buffered is flushed when the process exits, even by process.exit();
 * only a SIGKILL loses the last 100 ms of lines.
 *
 * A batch is written synchronously, as Node writes standard output to a file or pipe on Linux. SonicBoom's
 * asynchronous mode hands a batch to the thread pool, and its flush at exit wrote what was still buffered
 * at once, often before the thread pool had written the batch in flight: the last lines of a process came
 * out before earlier ones (a test that exits after 500 lines saw it in 8 runs of 40). So a reader that stops
 * reading (a full pipe) holds the process up, as it holds up console.log; the asynchronous mode held a
 * thread-pool thread instead, and the unwritten lines grew in memory.
 *
 * Each line is handed to the buffer as its UTF-8 bytes (SonicBoom's `buffer` content mode): in its text
 * mode SonicBoom appends every line to one growing string and measures that string's byte length on each
 * write, which flattens it, copying the whole batch so far for every line (8 KiB on average per line at a
 * 16 KiB batch); the copies outlived young-generation collections and made them slow. Buffers are
 * counted by their length and joined once per write.
 */
function bufferedStdout(): DestinationStream {
  if (stdoutStream) return stdoutStream;
  // SonicBoom's type declares the text mode's write(string) only; in the buffer mode it takes bytes.
  const out = pino.destination({ dest: 1, sync: true, minLength: 16_384, maxWrite: 65_536, periodicFlush: 100, contentMode: 'buffer' }) as unknown as {
    write(chunk: Buffer): boolean;
    flushSync(): void;
  };
  // Pino flushes only an asynchronous destination at exit; this one is synchronous, so its last batch is
  // flushed here. One stream per process: every logger on standard output shares it and its exit hook.
  process.once('exit', () => out.flushSync());
  stdoutStream = { write: (line: string) => out.write(Buffer.from(line)) };
  return stdoutStream;
}
