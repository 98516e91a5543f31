import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/** How often repeated refusals of one kind are summarized in one line. */
export const REFUSAL_SUMMARY_MS = 10_000;

/** 503s that refuse work rather than fail: back-pressure (`overloaded`) and `service_unavailable` (shutting down, keys unreachable). */
const REFUSING_503 = new Set(['overloaded', 'service_unavailable']);

/** Set by the error handler on the response: the catalogue type of the error it answered with. */
export const ERROR_TYPE_LOCAL = 'gengateErrorType';

interface Window {
  readonly status: number;
  suppressed: number;
}

/**
 * The log of refused requests: client errors (every 4xx) and the 503s that refuse work. They are the
 * client's or the load's doing, not a fault, so they are logged at info without a stack, and a burst is
 * summarized: the first refusal of a kind is logged as it happens (with its request), the others of
 * that kind within the interval are counted and written as one line when it ends. At most two lines per
 * kind per interval, whatever the request rate: the log stays readable when the server is overloaded.
 */
export class RefusalLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs: number = REFUSAL_SUMMARY_MS,
  ) {}

  /** The kind of refusal a finished response is (its error type, or `http_<status>`), or null for anything else. */
  static kindOf(res: ServerResponse): string | null {
    const locals = (res as ServerResponse & { locals?: Record<string, unknown> }).locals;
    const type = typeof locals?.[ERROR_TYPE_LOCAL] === 'string' ? (locals[ERROR_TYPE_LOCAL] as string) : null;
    if (res.statusCode >= 400 && res.statusCode < 500) return type ?? `http_${res.statusCode}`;
    if (res.statusCode === 503 && type !== null && REFUSING_503.has(type)) return type;
    return null;
  }

  record(req: IncomingMessage & { id?: unknown }, res: ServerResponse, kind: string): void {
    const open = this.windows.get(kind);
    if (open) {
      open.suppressed++;
      return;
    }
    this.logger.info({ req: { id: req.id, method: req.method }, status: res.statusCode, refusal: kind }, `request refused: ${kind} (${res.statusCode})`);
    const window: Window = { status: res.statusCode, suppressed: 0 };
    this.windows.set(kind, window);
    setTimeout(() => {
      this.windows.delete(kind);
      if (window.suppressed > 0) {
        this.logger.info(
          { refusal: kind, status: window.status, count: window.suppressed, intervalMs: this.intervalMs },
          `${window.suppressed} more requests refused: ${kind} (${window.status}) in the last ${this.intervalMs / 1000} s`,
        );
      }
    }, this.intervalMs).unref();
  }
}

const shared = new WeakMap<Logger, RefusalLog>();

/** One RefusalLog per logger, so the API router and the dashboard's share their counts. */
export function refusalLogFor(logger: Logger, intervalMs?: number): RefusalLog {
  if (intervalMs !== undefined) return new RefusalLog(logger, intervalMs);
  let log = shared.get(logger);
  if (!log) {
    log = new RefusalLog(logger);
    shared.set(logger, log);
  }
  return log;
}
