import type { QueueDepth, QueueInspector } from '@gengate/core/internal';
import type { PgBoss } from 'pg-boss';
import { QUEUES } from '../postgres/boss-queues.js';

/** Queue depth from pg-boss's own counts (refreshed by its monitor every few seconds). */
export function bossQueueInspector(boss: PgBoss): QueueInspector {
  return {
    async depth(): Promise<readonly QueueDepth[]> {
      const queues = await boss.getQueues(Object.values(QUEUES));
      return queues
        .map((q) => ({ queue: q.name, queued: q.queuedCount, ready: q.readyCount, deferred: q.deferredCount, active: q.activeCount, failed: q.failedCount }))
        .sort((a, b) => a.queue.localeCompare(b.queue));
    },
  };
}
