import { addLatencyHistograms, emptyLatencyHistogram, latencyBucketOf } from '../model/latency-histogram.js';
import { providerOfModelId, type UsageCounts, type UsageDimension, type UsageGroupRow, type UsageQuery } from '../model/usage.js';
import type { TaskRecord } from '../model/task.js';
import type { UsageReader } from '../ports/usage-reader.js';
import type { MemoryDatabase } from './memory-database.js';

interface MutableCounts {
  creditsMicro: number;
  tasks: number;
  failures: number;
  inputTokens: number;
  outputTokens: number;
  images: number;
  videoMs: number;
  latencyHistogram: number[];
}

/** Who submitted a task: its member, or (a task without one) its organization's owner, as the rollups' coalesce(member_id, user_id). */
const memberOfTask = (t: TaskRecord & { readonly memberId?: string }): string => t.memberId ?? t.userId;

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The UsageReader of the memory stores: the same figures as the PostgreSQL rollups (migration 023),
 * computed from the rows at read time: each ended task counted in the hour it ended, its credits the
 * ledger's usage deduction for it, its latency (successes only) from submission to end in whole ms.
 */
export class MemoryUsageReader implements UsageReader {
  constructor(private readonly db: MemoryDatabase) {}

  async read(q: UsageQuery): Promise<readonly UsageGroupRow[]> {
    const charged = new Map<string, number>();
    for (const t of this.db.transactions) if (t.paymentMethod === 'usage' && t.taskId !== null) charged.set(t.taskId, (charged.get(t.taskId) ?? 0) - t.creditsMicro);
    const groups = new Map<string, { row: Omit<UsageGroupRow, 'counts'>; counts: MutableCounts }>();
    for (const t of this.db.tasks.values()) {
      if ((t.status !== 'success' && t.status !== 'fail') || t.finishedAt === null) continue;
      const at = t.finishedAt.getTime();
      if (at < q.from.getTime() || at >= q.to.getTime()) continue;
      if (q.userId !== null && t.userId !== q.userId) continue;
      if (q.modelId !== undefined && t.modelId !== q.modelId) continue;
      if (q.apiKeyId !== undefined && t.apiKeyId !== q.apiKeyId) continue;
      const provider = providerOfModelId(t.modelId);
      if (q.provider !== undefined && provider !== q.provider) continue;
      const memberId = memberOfTask(t);
      if (q.memberId !== undefined && memberId !== q.memberId) continue;
      const hour = new Date(Math.floor(at / 3_600_000) * 3_600_000);
      const row = this.groupOf(q.groupBy, { hour, modelId: t.modelId, provider, apiKeyId: t.apiKeyId, userId: t.userId, memberId });
      const key = JSON.stringify(q.groupBy.map((g) => row[g === 'model' ? 'modelId' : g === 'key' ? 'apiKeyId' : g === 'user' ? 'userId' : g === 'member' ? 'memberId' : g] ?? null));
      let group = groups.get(key);
      if (!group) {
        group = {
          row,
          counts: { creditsMicro: 0, tasks: 0, failures: 0, inputTokens: 0, outputTokens: 0, images: 0, videoMs: 0, latencyHistogram: emptyLatencyHistogram() },
        };
        groups.set(key, group);
      }
      const c = group.counts;
      c.creditsMicro += charged.get(t.id) ?? 0;
      c.tasks += 1;
      if (t.status === 'fail') c.failures += 1;
      c.inputTokens += t.usage?.inputTokens ?? 0;
      c.outputTokens += t.usage?.outputTokens ?? 0;
      c.images += t.usage?.images ?? 0;
      c.videoMs += Math.round((t.usage?.videoSeconds ?? 0) * 1000);
      if (t.status === 'success') {
        const one = emptyLatencyHistogram();
        one[latencyBucketOf(Math.max(0, at - t.createdAt.getTime()))] = 1;
        addLatencyHistograms(c.latencyHistogram, one);
      }
    }
    const rows = [...groups.values()].map(({ row, counts }): UsageGroupRow => ({ ...row, counts: counts satisfies UsageCounts }));
    return rows.sort((a, b) => {
      for (const g of q.groupBy) {
        const d = this.compare(g, a, b);
        if (d !== 0) return d;
      }
      return 0;
    });
  }

  private groupOf(
    groupBy: readonly UsageDimension[],
    t: { hour: Date; modelId: string; provider: string; apiKeyId: string | null; userId: string; memberId: string },
  ): Omit<UsageGroupRow, 'counts'> {
    let row: Omit<UsageGroupRow, 'counts'> = {};
    for (const g of groupBy) {
      if (g === 'day') row = { ...row, day: t.hour.toISOString().slice(0, 10) };
      if (g === 'hour') row = { ...row, hour: t.hour };
      if (g === 'model') row = { ...row, modelId: t.modelId };
      if (g === 'provider') row = { ...row, provider: t.provider };
      if (g === 'key') row = { ...row, apiKeyId: t.apiKeyId, keyName: t.apiKeyId === null ? null : (this.db.keys.get(t.apiKeyId)?.name ?? null) };
      if (g === 'user') row = { ...row, userId: t.userId, userEmail: this.db.users.get(t.userId)?.email ?? null };
      if (g === 'member') row = { ...row, memberId: t.memberId, memberEmail: this.db.users.get(t.memberId)?.email ?? null };
    }
    return row;
  }

  private compare(g: UsageDimension, a: UsageGroupRow, b: UsageGroupRow): number {
    if (g === 'hour') return (a.hour?.getTime() ?? 0) - (b.hour?.getTime() ?? 0);
    if (g === 'key') {
      if (a.apiKeyId === b.apiKeyId) return 0;
      if (a.apiKeyId === null || a.apiKeyId === undefined) return -1;
      if (b.apiKeyId === null || b.apiKeyId === undefined) return 1;
      return compareText(a.apiKeyId, b.apiKeyId);
    }
    const field = g === 'day' ? 'day' : g === 'model' ? 'modelId' : g === 'provider' ? 'provider' : g === 'member' ? 'memberId' : 'userId';
    return compareText(a[field] ?? '', b[field] ?? '');
  }
}
