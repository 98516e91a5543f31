import type { Logger } from 'pino';
import type { Queryable } from '../postgres/queryable.js';
import { foldUsagePending } from '../postgres/sql/maintenance.js';

/** How often a process that runs generation jobs folds the pending usage rows (032). */
export const USAGE_FOLD_INTERVAL_MS = 5_000;

export interface UsageFolder {
  /** Stops folding; waits for a fold in flight. */
  stop(): Promise<void>;
}

/**
 * Folds the ends' pending usage rows (migration 032) into the hourly and daily rollups every `intervalMs`,
 * one fold at a time (the next is timed from the end of the last), so a reader of GET /usage scans a few
 * seconds' worth of pending rows, not what piled up since the last maintenance sweep. Any number of
 * processes may run one: folds take turns in PostgreSQL (gengate_fold_usage_pending). A failed fold is
 * logged and tried again at the next tick; the rows wait, still counted by readers.
 */
export function startUsageFolder(db: Queryable, schema: string, o: { intervalMs?: number; logger: Logger; onFolded?: (rows: number) => void }): UsageFolder {
  const intervalMs = o.intervalMs ?? USAGE_FOLD_INTERVAL_MS;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    inFlight = foldUsagePending(db, schema).then(
      (rows) => o.onFolded?.(rows),
      (err: unknown) => o.logger.warn({ err }, 'usage fold failed; the pending rows wait for the next one'),
    );
    void inFlight.then(schedule);
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(tick, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
