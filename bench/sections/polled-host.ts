import { createKeys, submitOne } from './gengate.js';
import type { ScratchHost } from './ab-rounds.js';

/** A host under a poll bench, with the one task it is polled for and the key that may read it. */
export interface PolledHost extends ScratchHost {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** One key and one submitted task on the host's database: what it is polled for. */
export async function withTask(h: ScratchHost): Promise<PolledHost> {
  const [key = ''] = await createKeys(h.dbUrl, 1);
  const taskId = await submitOne(h.host, key);
  return { ...h, url: `${h.host.url}/api/v1/run/tasks/${taskId}`, headers: { authorization: `Bearer ${key}` } };
}
