import { randomUUID } from 'node:crypto';
import type { JsonValue, RunRequest, TaskListFilter } from '@gengate/core';
import { describe, expect, it } from 'vitest';
import { nextMillisecond, REQUEST, type StoreFixtures } from './store-fixtures.js';

const EMPTY_SUCCESS = () => ({ outputs: [], warnings: [], chargedMicro: 0, costMicro: 0, reportedCostMicro: null, usage: {}, metadata: {}, at: new Date() });

export function describeTasksContract(f: StoreFixtures): void {
  const { stores, newUser, keyFor, taskFor, newTask } = f;
  describe('tasks', () => {
    it('insert stores a waiting task with empty results, and findById returns it', async () => {
      const user = await newUser();
      const task = await newTask(user.id, 1_234_567);
      expect(task).toMatchObject({
        userId: user.id,
        apiKeyId: null,
        modelId: 'conformance.image',
        modality: 'image',
        status: 'waiting',
        request: REQUEST,
        callbackUrl: null,
        quotedMicro: 1_234_567,
        chargedMicro: null,
        outputs: [],
        warnings: [],
        errorMessage: null,
        upstreamHandle: null,
        attempts: 0,
        startedAt: null,
        finishedAt: null,
      });
      expect(task.createdAt).toBeInstanceOf(Date);
      expect(await stores().tasks.findById(task.id)).toEqual(task);
      expect(await stores().tasks.findById(randomUUID())).toBeNull();
    });

    it('keeps the API key id, the callback url and a full request', async () => {
      const user = await newUser();
      const key = await stores().keys.insert(keyFor(user.id));
      const request: RunRequest = {
        prompt: 'a paper boat — ünïcödé',
        callback_url: 'https://example.com/hook?x=1',
        video_params: { duration: 10, resolution: '1080p', enable_translation: true, multi_shots: false, image_urls: ['https://example.com/a.png'] },
      };
      const task = await stores().tasks.insert({
        ...taskFor(user.id, 80_000_000),
        apiKeyId: key.id,
        modelId: 'conformance.video',
        modality: 'video',
        request,
        callbackUrl: 'https://example.com/hook?x=1',
      });
      const found = await stores().tasks.findById(task.id);
      expect(found).toMatchObject({
        apiKeyId: key.id,
        modality: 'video',
        callbackUrl: 'https://example.com/hook?x=1',
        quotedMicro: 80_000_000,
        quotedCostMicro: 80_000_000,
        admitted: true,
        pollSeq: 0,
        progress: null,
        costMicro: null,
        usage: null,
      });
      expect(found?.request).toEqual(request);
    });

    it('keeps the submitting member (absent: the task is its organization’s own, memberId = userId)', async () => {
      const user = await newUser();
      const member = await newUser();
      const own = await newTask(user.id);
      expect(own.memberId).toBe(user.id);
      const byMember = await stores().tasks.insert({ ...taskFor(user.id), memberId: member.id });
      expect(byMember.memberId).toBe(member.id);
      expect((await stores().tasks.findById(byMember.id))?.memberId).toBe(member.id);
      expect((await stores().tasks.findById(own.id))?.memberId).toBe(user.id);
    });

    it('findForUser finds the owner’s task and returns null for another user', async () => {
      const owner = await newUser();
      const other = await newUser();
      const task = await newTask(owner.id);
      expect((await stores().tasks.findForUser(task.id, owner.id))?.id).toBe(task.id);
      expect(await stores().tasks.findForUser(task.id, other.id)).toBeNull();
      expect(await stores().tasks.findForUser(randomUUID(), owner.id)).toBeNull();
    });

    it('markGenerating moves waiting -> generating, counts every attempt and keeps the first startedAt', async () => {
      const user = await newUser();
      const task = await newTask(user.id);
      const first = new Date(Date.now() - 10_000);
      const g1 = await stores().tasks.markGenerating(task.id, first);
      expect(g1).toMatchObject({ id: task.id, status: 'generating', attempts: 1 });
      expect(g1?.startedAt?.getTime()).toBe(first.getTime());

      const g2 = await stores().tasks.markGenerating(task.id, new Date());
      expect(g2).toMatchObject({ status: 'generating', attempts: 2 });
      expect(g2?.startedAt?.getTime()).toBe(first.getTime());

      const stored = await stores().tasks.findById(task.id);
      expect(stored).toMatchObject({ status: 'generating', attempts: 2, finishedAt: null });
      expect(stored?.startedAt?.getTime()).toBe(first.getTime());
      expect(await stores().tasks.markGenerating(randomUUID(), new Date())).toBeNull();
    });

    it('releaseClaim (when the store has it) undoes one markGenerating: the attempt uncounted, a first start back to waiting', async (ctx) => {
      const tasks = stores().tasks;
      if (!tasks.releaseClaim) return ctx.skip();
      const user = await newUser();
      const task = await newTask(user.id);
      const first = new Date(Date.now() - 10_000);
      await tasks.markGenerating(task.id, first);
      await tasks.releaseClaim(task.id, { attempts: 1, at: first });
      expect(await tasks.findById(task.id)).toMatchObject({ status: 'waiting', attempts: 0, startedAt: null });
      // A retry's claim (the task had started before) keeps it generating and its first start.
      await tasks.markGenerating(task.id, first);
      const retry = new Date();
      await tasks.markGenerating(task.id, retry);
      await tasks.releaseClaim(task.id, { attempts: 2, at: retry });
      const after = await tasks.findById(task.id);
      expect(after).toMatchObject({ status: 'generating', attempts: 1 });
      expect(after?.startedAt?.getTime()).toBe(first.getTime());
      // Only the claim it names: a stale one (another attempt since) changes nothing.
      await tasks.releaseClaim(task.id, { attempts: 2, at: retry });
      expect(await tasks.findById(task.id)).toMatchObject({ status: 'generating', attempts: 1 });
    });

    it('markSuccess only ends a generating task, and only once', async () => {
      const user = await newUser();
      const task = await newTask(user.id, 2_000_000);
      const at = new Date();
      const result = {
        outputs: [{ key: `${task.id}/output-0.png`, mediaType: 'image/png', bytes: 1234 }],
        warnings: [{ param: 'image_params.seed', message: 'ignored' }],
        chargedMicro: 2_000_000,
        costMicro: 1_600_000,
        reportedCostMicro: 1_500_000,
        usage: { images: 1 },
        metadata: { requestId: 'req_123', finishReason: 'stop' },
        at,
      };
      expect(await stores().tasks.markSuccess(task.id, result)).toBe(false);
      expect((await stores().tasks.findById(task.id))?.status).toBe('waiting');

      await stores().tasks.markGenerating(task.id, new Date());
      expect(await stores().tasks.markSuccess(task.id, result)).toBe(true);
      const done = await stores().tasks.findById(task.id);
      expect(done).toMatchObject({
        status: 'success',
        outputs: result.outputs,
        warnings: result.warnings,
        chargedMicro: 2_000_000,
        costMicro: 1_600_000,
        reportedCostMicro: 1_500_000,
        usage: { images: 1 },
        upstreamMetadata: { requestId: 'req_123', finishReason: 'stop' },
        errorMessage: null,
        attempts: 1,
      });
      expect(done?.finishedAt?.getTime()).toBe(at.getTime());

      expect(await stores().tasks.markSuccess(task.id, { ...result, chargedMicro: 1 })).toBe(false);
      expect(await stores().tasks.markFail(task.id, 'too late', new Date())).toBe(false);
      expect(await stores().tasks.markGenerating(task.id, new Date())).toBeNull();
      expect(await stores().tasks.markSuccess(randomUUID(), result)).toBe(false);
      expect(await stores().tasks.findById(task.id)).toMatchObject({ status: 'success', chargedMicro: 2_000_000, errorMessage: null, attempts: 1 });
    });

    it('markFail ends a waiting or a generating task, and is false once the task has ended', async () => {
      const user = await newUser();
      const waiting = await newTask(user.id);
      const generating = await newTask(user.id);
      await stores().tasks.markGenerating(generating.id, new Date());
      const at = new Date();

      expect(await stores().tasks.markFail(waiting.id, 'rejected before start', at)).toBe(true);
      expect(await stores().tasks.markFail(generating.id, 'upstream said no', at)).toBe(true);
      const w = await stores().tasks.findById(waiting.id);
      const g = await stores().tasks.findById(generating.id);
      expect(w).toMatchObject({ status: 'fail', errorMessage: 'rejected before start', outputs: [], chargedMicro: null });
      expect(g).toMatchObject({ status: 'fail', errorMessage: 'upstream said no', attempts: 1 });
      expect(w?.finishedAt?.getTime()).toBe(at.getTime());

      expect(await stores().tasks.markFail(waiting.id, 'again', new Date())).toBe(false);
      expect(await stores().tasks.markGenerating(waiting.id, new Date())).toBeNull();
      expect(await stores().tasks.markSuccess(generating.id, EMPTY_SUCCESS())).toBe(false);
      expect(await stores().tasks.markFail(randomUUID(), 'ghost', new Date())).toBe(false);
      expect((await stores().tasks.findById(waiting.id))?.errorMessage).toBe('rejected before start');
      expect((await stores().tasks.findById(generating.id))?.status).toBe('fail');
    });

    it('recordRouteAttempt appends to the attempt log in order; the route of the latest attempt that was not skipped is the task\'s route', async () => {
      const user = await newUser();
      const task = await newTask(user.id);
      expect((await stores().tasks.findById(task.id))?.routeAttempts ?? []).toEqual([]);
      expect((await stores().tasks.findById(task.id))?.routeId ?? null).toBeNull();
      const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms));
      const failed = { route: 'a.model', provider: 'a', outcome: 'error' as const, errorClass: 'rate_limited', upstreamStatus: 429, startedAt: at(1), endedAt: at(250) };
      const skipped = { route: 'b.model', provider: 'b', outcome: 'skipped' as const, errorClass: 'circuit_open', upstreamStatus: null, startedAt: at(300), endedAt: at(300) };
      const answered = { route: 'c.model', provider: 'c', outcome: 'success' as const, errorClass: null, upstreamStatus: null, startedAt: at(301), endedAt: at(999) };
      await stores().tasks.recordRouteAttempt(task.id, failed);
      await stores().tasks.recordRouteAttempt(task.id, skipped);
      const afterSkip = await stores().tasks.findById(task.id);
      expect(afterSkip?.routeId).toBe('a.model');
      await stores().tasks.recordRouteAttempt(task.id, answered);
      const read = await stores().tasks.findForUser(task.id, user.id);
      expect(read?.routeAttempts).toEqual([failed, skipped, answered]);
      expect(read?.routeId).toBe('c.model');
    });

    it('saveUpstreamHandle round-trips JSON values', async () => {
      const user = await newUser();
      const task = await newTask(user.id);
      const handle: JsonValue = {
        job: 'up-123',
        attempt: 2,
        ratio: 0.5,
        ok: true,
        nothing: null,
        nested: { list: [1, 'two', false, null, { deep: 'ü ✓' }] },
      };
      await stores().tasks.saveUpstreamHandle(task.id, handle);
      expect((await stores().tasks.findById(task.id))?.upstreamHandle).toEqual(handle);
      await stores().tasks.saveUpstreamHandle(task.id, 'opaque-string-handle');
      expect((await stores().tasks.findById(task.id))?.upstreamHandle).toBe('opaque-string-handle');
      await stores().tasks.saveUpstreamHandle(task.id, [42, 'x']);
      expect((await stores().tasks.findForUser(task.id, user.id))?.upstreamHandle).toEqual([42, 'x']);
    });

    it('saveUpstreamHandle stores the start warnings with the handle; a new handle replaces them, clearing empties them', async () => {
      const user = await newUser();
      const task = await newTask(user.id);
      const first = [{ param: 'video_params.duration', message: 'rounded to 5 s' }];
      await stores().tasks.saveUpstreamHandle(task.id, { job: 'job-1' }, first);
      expect((await stores().tasks.findById(task.id))?.warnings).toEqual(first);
      const second = [{ param: 'video_params.resolution', message: 'served at 720p' }];
      await stores().tasks.saveUpstreamHandle(task.id, { job: 'job-2' }, second);
      expect((await stores().tasks.findById(task.id))?.warnings).toEqual(second);
      await stores().tasks.saveUpstreamHandle(task.id, null);
      expect((await stores().tasks.findById(task.id))?.warnings).toEqual([]);
    });

    it('listUnfinished lists waiting and generating tasks, never ended ones, up to the limit', async () => {
      const user = await newUser();
      const waiting = await newTask(user.id);
      const generating = await newTask(user.id);
      const succeeded = await newTask(user.id);
      const failed = await newTask(user.id);
      await stores().tasks.markGenerating(generating.id, new Date());
      await stores().tasks.markGenerating(succeeded.id, new Date());
      await stores().tasks.markSuccess(succeeded.id, EMPTY_SUCCESS());
      await stores().tasks.markFail(failed.id, 'no', new Date());

      const all = await stores().tasks.listUnfinished(100_000);
      const ids = new Set(all.map((t) => t.id));
      expect(ids.has(waiting.id)).toBe(true);
      expect(ids.has(generating.id)).toBe(true);
      expect(ids.has(succeeded.id)).toBe(false);
      expect(ids.has(failed.id)).toBe(false);
      expect(all.every((t) => t.status === 'waiting' || t.status === 'generating')).toBe(true);
      expect(all.find((t) => t.id === generating.id)?.status).toBe('generating');
      expect((await stores().tasks.listUnfinished(1)).length).toBe(1);
    });

    it('advanceCheck moves the chain of status checks by compare-and-set, on a generating task only', async () => {
      const user = await newUser();
      const task = await newTask(user.id);
      expect(await stores().tasks.advanceCheck(task.id, 0, null)).toBe(false);
      await stores().tasks.markGenerating(task.id, new Date());
      expect(await stores().tasks.advanceCheck(task.id, 0, null)).toBe(true);
      expect(await stores().tasks.advanceCheck(task.id, 1, 0.25)).toBe(true);
      expect(await stores().tasks.findById(task.id)).toMatchObject({ pollSeq: 2, progress: 0.25 });
      // A stale check (one that is no longer the latest) moves nothing, whatever it reports.
      expect(await stores().tasks.advanceCheck(task.id, 1, 0.9)).toBe(false);
      expect(await stores().tasks.advanceCheck(task.id, 0, 0.9)).toBe(false);
      expect(await stores().tasks.findById(task.id)).toMatchObject({ pollSeq: 2, progress: 0.25 });
      expect(await stores().tasks.advanceCheck(task.id, 2, null)).toBe(true);
      expect(await stores().tasks.findById(task.id)).toMatchObject({ pollSeq: 3, progress: 0.25 });
      // Two checks of the same number racing: exactly one moves the chain on.
      const raced = await Promise.all([stores().tasks.advanceCheck(task.id, 3, null), stores().tasks.advanceCheck(task.id, 3, null)]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect((await stores().tasks.findById(task.id))?.pollSeq).toBe(4);
      await stores().tasks.saveUpstreamHandle(task.id, null);
      expect((await stores().tasks.findById(task.id))?.upstreamHandle).toBeNull();
      await stores().tasks.markFail(task.id, 'done', new Date());
      expect(await stores().tasks.advanceCheck(task.id, 4, 0.5)).toBe(false);
    });

    it('saveWebhookPayload keeps one completion per upstream job, on a generating task only', async () => {
      const user = await newUser();
      const task = await newTask(user.id);
      expect(await stores().tasks.saveWebhookPayload(task.id, { id: 'job-1' })).toBe(false);
      await stores().tasks.markGenerating(task.id, new Date());
      await stores().tasks.saveUpstreamHandle(task.id, { job: 'job-1' });
      // The same delivery twice at once: kept once.
      const saved = await Promise.all([stores().tasks.saveWebhookPayload(task.id, { id: 'job-1' }), stores().tasks.saveWebhookPayload(task.id, { id: 'job-1' })]);
      expect(saved.filter(Boolean)).toHaveLength(1);
      expect(await stores().tasks.saveWebhookPayload(task.id, { id: 'job-1', again: true })).toBe(false);
      expect((await stores().tasks.findById(task.id))?.webhookPayload).toEqual({ id: 'job-1' });
      // A new upstream job (a retry) clears what was kept for the old one.
      await stores().tasks.saveUpstreamHandle(task.id, { job: 'job-2' });
      expect((await stores().tasks.findById(task.id))?.webhookPayload).toBeNull();
      expect(await stores().tasks.saveWebhookPayload(task.id, { id: 'job-2' })).toBe(true);
      await stores().tasks.markFail(task.id, 'done', new Date());
      expect(await stores().tasks.saveWebhookPayload(task.id, { id: 'job-3' })).toBe(false);
    });

    it('counts a user’s unfinished tasks per modality and admits queued ones oldest first', async () => {
      const user = await newUser();
      const other = await newUser();
      const admitted = await stores().tasks.insert({ ...taskFor(user.id), admitted: true });
      const q1 = await stores().tasks.insert({ ...taskFor(user.id), admitted: false });
      const q2 = await stores().tasks.insert({ ...taskFor(user.id), admitted: false });
      const q3 = await stores().tasks.insert({ ...taskFor(user.id), admitted: false });
      await stores().tasks.insert({ ...taskFor(other.id), admitted: false });
      await stores().tasks.insert({ ...taskFor(user.id), modality: 'chat', admitted: false });
      expect(await stores().tasks.activeCounts(user.id, 'image')).toEqual({ admitted: 1, queued: 3 });
      expect(await stores().tasks.admitQueued(user.id, 'image', 2)).toEqual([q1.id, q2.id]);
      expect(await stores().tasks.activeCounts(user.id, 'image')).toEqual({ admitted: 3, queued: 1 });
      await stores().tasks.markFail(admitted.id, 'ended', new Date());
      await stores().tasks.markFail(q3.id, 'ended while queued', new Date());
      expect(await stores().tasks.activeCounts(user.id, 'image')).toEqual({ admitted: 2, queued: 0 });
      expect(await stores().tasks.admitQueued(user.id, 'image', 5)).toEqual([]);
      expect(await stores().tasks.activeCounts(other.id, 'image')).toEqual({ admitted: 0, queued: 1 });
      expect(await stores().tasks.activeCounts(user.id, 'chat')).toEqual({ admitted: 0, queued: 1 });
    });

    it('failWaitingForKey ends only waiting tasks of that key and says whose they were', async () => {
      const user = await newUser();
      const key = await stores().keys.insert(keyFor(user.id));
      const waiting = await stores().tasks.insert({ ...taskFor(user.id), apiKeyId: key.id });
      const generating = await stores().tasks.insert({ ...taskFor(user.id), apiKeyId: key.id });
      await stores().tasks.markGenerating(generating.id, new Date());
      const ended = await stores().tasks.failWaitingForKey(key.id, 'revoked', new Date());
      expect(ended).toEqual([{ id: waiting.id, userId: user.id, modality: 'image' }]);
      expect((await stores().tasks.findById(generating.id))?.status).toBe('generating');
    });

    it('listForUser pages a user\'s tasks newest first, filtered by status, model and modality (lists mean OR)', async () => {
      const user = await newUser();
      const other = await newUser();
      const made = [];
      for (const [modelId, modality] of [
        ['conformance.image', 'image'],
        ['conformance.video', 'video'],
        ['conformance.image', 'image'],
        ['conformance.chat', 'chat'],
      ] as const) {
        made.push(await stores().tasks.insert({ ...taskFor(user.id), modelId, modality }));
        await nextMillisecond();
      }
      await stores().tasks.insert(taskFor(other.id));
      const [img1, vid, img2, chat] = made as [(typeof made)[number], (typeof made)[number], (typeof made)[number], (typeof made)[number]];
      await stores().tasks.markGenerating(vid.id, new Date());
      await stores().tasks.markGenerating(img2.id, new Date());
      await stores().tasks.markSuccess(img2.id, EMPTY_SUCCESS());
      await stores().tasks.markFail(chat.id, 'broken', new Date());

      const ids = async (filter: TaskListFilter, page = 1, perPage = 10) =>
        stores().tasks.listForUser(user.id, filter, page, perPage).then((p) => ({ ids: p.items.map((t) => t.id), total: p.total }));
      expect(await ids({})).toEqual({ ids: [chat.id, img2.id, vid.id, img1.id], total: 4 });
      expect(await ids({}, 2, 3)).toEqual({ ids: [img1.id], total: 4 });
      expect(await ids({}, 3, 3)).toEqual({ ids: [], total: 4 });
      expect(await ids({ statuses: ['success', 'fail'] })).toEqual({ ids: [chat.id, img2.id], total: 2 });
      expect(await ids({ statuses: ['waiting'] })).toEqual({ ids: [img1.id], total: 1 });
      expect(await ids({ modelIds: ['conformance.image'] })).toEqual({ ids: [img2.id, img1.id], total: 2 });
      expect(await ids({ modalities: ['video', 'chat'] })).toEqual({ ids: [chat.id, vid.id], total: 2 });
      expect(await ids({ statuses: ['generating'], modalities: ['video'], modelIds: ['conformance.video'] })).toEqual({ ids: [vid.id], total: 1 });
      expect(await ids({ statuses: [], modelIds: [], modalities: [] })).toEqual({ ids: [chat.id, img2.id, vid.id, img1.id], total: 4 });
      const listed = (await stores().tasks.listForUser(user.id, { statuses: ['success'] }, 1, 10)).items[0];
      expect(listed).toEqual(await stores().tasks.findById(img2.id));
      expect((await stores().tasks.listForUser(randomUUID(), {}, 1, 10)).total).toBe(0);
    });
  });
}
