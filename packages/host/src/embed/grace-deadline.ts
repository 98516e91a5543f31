import type { Logger } from 'pino';

/** One shutdown deadline shared by every part that stops: each gets what is left of it. */
export interface GraceDeadline {
  /** Milliseconds left until the deadline (never negative). */
  remaining(): number;
  /** Waits for p, but not past the deadline (plus a margin for what is cut off there to unwind). */
  bounded(p: Promise<unknown> | undefined | null, what: string, marginMs?: number): Promise<void>;
  /** How far past the deadline we are now. */
  overrunMs(): number;
}

export function graceDeadline(graceMs: number, logger: Logger): GraceDeadline {
  const deadline = Date.now() + graceMs;
  const remaining = () => Math.max(0, deadline - Date.now());
  return {
    remaining,
    overrunMs: () => Math.max(0, Date.now() - deadline),
    async bounded(p, what, marginMs = 250) {
      if (!p) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), remaining() + marginMs);
      });
      const outcome = await Promise.race([p.then(() => 'done' as const, (err: unknown) => (logger.warn({ err, what }, 'shutdown step failed'), 'done' as const)), late]);
      clearTimeout(timer);
      if (outcome === 'late') logger.warn({ what }, 'shutdown step cut off at the grace deadline; its work is retried by the next process');
    },
  };
}
