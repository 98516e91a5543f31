import type { Modality } from '../model/modality.js';
import type { RouteAttempt } from '../model/routing.js';
import type { TaskRecord } from '../model/task.js';
import type { UpstreamMetadata } from '../ports/provider-adapter.js';
import type { NewTask, Page, ActiveTaskCounts, TaskListFilter, TaskStore, TaskSuccess } from '../ports/stores.js';
import type { JsonValue } from '../util/json.js';
import type { MemoryDatabase } from './memory-database.js';

export class MemoryTaskStore implements TaskStore {
  constructor(private readonly db: MemoryDatabase) {}
  private patch(id: string, fn: (t: TaskRecord) => TaskRecord | null): TaskRecord | null {
    const t = this.db.tasks.get(id);
    if (!t) return null;
    const next = fn(t);
    if (next) this.db.tasks.set(id, next);
    return next;
  }
  async insert(t: NewTask): Promise<TaskRecord> {
    const rec: TaskRecord = {
      ...t,
      memberId: t.memberId ?? t.userId,
      status: 'waiting',
      chargedMicro: null,
      costMicro: null,
      reportedCostMicro: null,
      usage: null,
      upstreamMetadata: null,
      progress: null,
      pollSeq: 0,
      webhookPayload: null,
      outputs: [],
      warnings: [],
      errorMessage: null,
      upstreamHandle: null,
      attempts: 0,
      routeId: null,
      routeAttempts: [],
      createdAt: new Date(),
      startedAt: null,
      finishedAt: null,
    };
    this.db.tasks.set(t.id, rec);
    return rec;
  }
  async recordRouteAttempt(id: string, attempt: RouteAttempt): Promise<void> {
    this.patch(id, (t) => ({ ...t, routeAttempts: [...(t.routeAttempts ?? []), attempt], routeId: attempt.outcome === 'skipped' ? (t.routeId ?? null) : attempt.route }));
  }
  async findById(id: string) {
    return this.db.tasks.get(id) ?? null;
  }
  async listForUser(userId: string, filter: TaskListFilter, page: number, perPage: number): Promise<Page<TaskRecord>> {
    const any = <T>(list: readonly T[] | undefined, v: T) => !list || list.length === 0 || list.includes(v);
    const all = [...this.db.tasks.values()]
      .filter((t) => t.userId === userId && (filter.memberId === undefined || (t.memberId ?? t.userId) === filter.memberId) && any(filter.statuses, t.status) && any(filter.modelIds, t.modelId) && any(filter.modalities, t.modality))
      .reverse() // insertion order breaks ties between tasks created in the same millisecond
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    // As a PostgreSQL page: no inline outputs' bytes (TaskStore.listForUser).
    return { items: all.slice((page - 1) * perPage, page * perPage).map(({ outputBodies: _, ...t }) => t), total: all.length };
  }
  async findForUser(id: string, userId: string) {
    const t = this.db.tasks.get(id);
    return t && t.userId === userId ? t : null;
  }
  async markGenerating(id: string, at: Date) {
    return this.patch(id, (t) =>
      t.status === 'waiting' || t.status === 'generating'
        ? { ...t, status: 'generating', attempts: t.attempts + 1, startedAt: t.startedAt ?? at }
        : null,
    );
  }
  async releaseClaim(id: string, claim: { readonly attempts: number; readonly at: Date }) {
    this.patch(id, (t) => {
      if (t.status !== 'generating' || t.attempts !== claim.attempts) return null;
      const started = t.startedAt?.getTime() === claim.at.getTime();
      return { ...t, attempts: t.attempts - 1, ...(started ? { status: 'waiting' as const, startedAt: null } : {}) };
    });
  }
  async saveUpstreamHandle(id: string, handle: TaskRecord['upstreamHandle'], startWarnings: TaskRecord['warnings'] = []) {
    this.patch(id, (t) => ({ ...t, upstreamHandle: handle, warnings: [...startWarnings], webhookPayload: null }));
  }
  async advanceCheck(id: string, current: number, progress: number | null) {
    return this.patch(id, (t) => (t.status === 'generating' && t.pollSeq === current ? { ...t, pollSeq: current + 1, progress: progress ?? t.progress } : null)) !== null;
  }
  async saveWebhookPayload(id: string, payload: JsonValue) {
    return this.patch(id, (t) => (t.status === 'generating' && t.webhookPayload === null ? { ...t, webhookPayload: payload } : null)) !== null;
  }
  async markSuccess(id: string, r: TaskSuccess) {
    return (
      this.patch(id, (t) =>
        t.status === 'generating'
          ? {
              ...t,
              status: 'success',
              outputs: r.outputs,
              ...(r.outputBodies ? { outputBodies: r.outputBodies } : {}),
              warnings: r.warnings,
              chargedMicro: r.chargedMicro,
              costMicro: r.costMicro,
              reportedCostMicro: r.reportedCostMicro,
              usage: r.usage,
              upstreamMetadata: r.metadata,
              progress: null,
              admitted: false,
              finishedAt: r.at,
            }
          : null,
      ) !== null
    );
  }
  async deleteOutputBodies(id: string) {
    this.patch(id, ({ outputBodies: _, ...t }) => t);
  }
  async markFail(id: string, message: string, at: Date, metadata?: UpstreamMetadata) {
    return (
      this.patch(id, (t) =>
        t.status === 'waiting' || t.status === 'generating'
          ? { ...t, status: 'fail', errorMessage: message, finishedAt: at, admitted: false, progress: null, upstreamMetadata: metadata ?? t.upstreamMetadata }
          : null,
      ) !== null
    );
  }
  async failWaitingForKey(apiKeyId: string, message: string, at: Date) {
    const ended = [...this.db.tasks.values()].filter((t) => t.apiKeyId === apiKeyId && t.status === 'waiting');
    for (const t of ended) await this.markFail(t.id, message, at);
    return ended.map((t) => ({ id: t.id, userId: t.userId, modality: t.modality }));
  }
  async listUnfinished(limit: number) {
    return [...this.db.tasks.values()].filter((t) => t.status === 'waiting' || t.status === 'generating').slice(0, limit);
  }
  private unfinishedOf(userId: string, modality: Modality): TaskRecord[] {
    return [...this.db.tasks.values()].filter((t) => t.userId === userId && t.modality === modality && (t.status === 'waiting' || t.status === 'generating'));
  }
  async activeCounts(userId: string, modality: Modality): Promise<ActiveTaskCounts> {
    const tasks = this.unfinishedOf(userId, modality);
    return { admitted: tasks.filter((t) => t.admitted).length, queued: tasks.filter((t) => !t.admitted).length };
  }
  async listOverdue(now: Date, deadlinesMs: Readonly<Record<Modality, number>>, marginMs: number, admittedGraceMs: number, limit: number) {
    return [...this.db.tasks.values()]
      .filter((t) => {
        const late = now.getTime() - deadlinesMs[t.modality] - marginMs;
        if (t.status === 'generating') return (t.startedAt ?? t.createdAt).getTime() < late;
        return t.status === 'waiting' && t.admitted && t.createdAt.getTime() < late - admittedGraceMs;
      })
      .slice(0, limit);
  }
  async listQueuedUsers(limit: number) {
    const pairs = new Map<string, { userId: string; modality: Modality }>();
    for (const t of this.db.tasks.values()) if (t.status === 'waiting' && !t.admitted) pairs.set(`${t.userId}/${t.modality}`, { userId: t.userId, modality: t.modality });
    return [...pairs.values()].slice(0, limit);
  }
  async admitQueued(userId: string, modality: Modality, slots: number) {
    const next = this.unfinishedOf(userId, modality)
      .filter((t) => !t.admitted && t.status === 'waiting')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, Math.max(0, slots));
    for (const t of next) this.patch(t.id, (x) => ({ ...x, admitted: true }));
    return next.map((t) => t.id);
  }
}
