import { randomUUID } from 'node:crypto';
import type { RunRequest, TaskListFilter } from '@gengate/core';
import { describe, expect, it } from 'vitest';
import { describeTaskExecutionContract } from './store-contract-task-execution.js';
import { EMPTY_SUCCESS, nextMillisecond, REQUEST, type StoreFixtures } from './store-fixtures.js';

/** The task store's rows and queries; the execution state a worker moves (store-contract-task-execution.ts) runs among them. */
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

    describeTaskExecutionContract(f);

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
