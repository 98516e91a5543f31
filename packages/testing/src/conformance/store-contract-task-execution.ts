import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@gengate/core';
import { expect, it } from 'vitest';
import { EMPTY_SUCCESS, type StoreFixtures } from './store-fixtures.js';

/**
 * The task store's execution state, as a worker moves it (inside the `tasks` describe of
 * store-contract-tasks.ts): claim and release, the two ends, the route attempts, the upstream handle, the
 * chain of status checks and the completion webhook.
 */
export function describeTaskExecutionContract(f: StoreFixtures): void {
  const { stores, newUser, newTask } = f;
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

  it('markSuccess keeps the inline outputs\' bytes with the task (parallel to outputs); deleteOutputBodies drops them, the outputs stay listed', async () => {
    const user = await newUser();
    const task = await newTask(user.id);
    const answer = new TextEncoder().encode('a small answer');
    const outputs = [
      { key: `${task.id}/output-0-a.txt`, mediaType: 'text/plain', bytes: answer.byteLength, inline: true as const },
      { key: `${task.id}/output-1-a.png`, mediaType: 'image/png', bytes: 99_999 },
    ];
    const success = { ...EMPTY_SUCCESS(), outputs, outputBodies: [answer, null] };
    // Not generating: nothing written, bytes included.
    expect(await stores().tasks.markSuccess(task.id, success)).toBe(false);
    expect((await stores().tasks.findById(task.id))?.outputBodies ?? null).toBeNull();
    await stores().tasks.markGenerating(task.id, new Date());
    expect(await stores().tasks.markSuccess(task.id, success)).toBe(true);
    const done = await stores().tasks.findById(task.id);
    expect(done?.outputs).toEqual(outputs);
    expect(done?.outputBodies?.map((b) => (b === null ? null : new TextDecoder().decode(b)))).toEqual(['a small answer', null]);
    expect((await stores().tasks.findForUser(task.id, user.id))?.outputBodies?.length).toBe(2);
    // A page of tasks ships none of their bytes: the task is listed, its outputs too.
    const listed = (await stores().tasks.listForUser(user.id, {}, 1, 10)).items.find((t) => t.id === task.id);
    expect(listed?.outputs).toEqual(outputs);
    expect(listed && 'outputBodies' in listed).toBe(false);

    await stores().tasks.deleteOutputBodies(task.id);
    const deleted = await stores().tasks.findById(task.id);
    expect(deleted?.outputBodies ?? null).toBeNull();
    expect(deleted?.outputs).toEqual(outputs);
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
}
