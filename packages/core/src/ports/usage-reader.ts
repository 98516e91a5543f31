import { GatewayError } from '../errors/gateway-error.js';
import type { UsageGroupRow, UsageQuery } from '../model/usage.js';

/**
 * Reads usage rollups: the figures of the tasks that ended in [from, to), grouped as asked, rows sorted
 * by the group dimensions in order (a day or hour ascending, names ascending, a null key first). A group
 * appears only when at least one task of it ended. The PostgreSQL host reads the rollups its settlement
 * trigger keeps (migration 023); the memory stores compute the same from their rows.
 */
export interface UsageReader {
  read(query: UsageQuery): Promise<readonly UsageGroupRow[]>;
}

/** The default of a gengate built on stores that keep no rollups: reading usage is refused (503). */
export const NO_USAGE_READER: UsageReader = {
  read: () =>
    Promise.reject(
      new GatewayError('service_unavailable', 'Usage analytics are not available: these stores keep no usage rollups (give createGengate a `usageReader`).'),
    ),
};
