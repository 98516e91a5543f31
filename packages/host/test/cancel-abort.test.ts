import { TaskCancelled } from '@gengate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ended, FakeAdapter, MODELS, newCaller, openWorkerHarness, usageFor, waitFor, type HostProcess, type WorkerHarness } from './support/worker-harness.js';

// Reproduction 1 of the multi-tenant safety issue: cancelling a generating task let the worker's call run
// on, store its file and leave it downloadable for free. Now the call is aborted at once, wherever it
// runs, and nothing of the task is kept.
describe('cancel aborts the upstream call in flight', () => {
  const adapter = new FakeAdapter();
  let h: WorkerHarness;
  let worker: HostProcess;
  let api: HostProcess;

  beforeAll(async () => {
    // Longer than any test runs: a call that ends at all was aborted; its abort reason says by what.
    adapter.slowMs = 3_600_000;
    h = await openWorkerHarness(() => [adapter]);
    worker = await h.startProcess();
    api = await h.startProcess({ worker: false }); // another process: only the database connects them
  });

  afterAll(async () => {
    await h?.close();
  });

  for (const where of ['the same process', 'another process'] as const) {
    it(`from ${where}: the cancel aborts the call in flight, no file is kept, nothing is charged`, async () => {
      const canceller = where === 'the same process' ? worker : api;
      const auth = await newCaller(worker.gengate, 100);
      const { task_id: taskId } = await worker.gengate.submitRun.execute(auth, MODELS.slow, { prompt: 'cancel me' });
      await waitFor('the upstream call to start', async () => (adapter.generateCalls.get(taskId) ? true : null));
      const view = await canceller.gengate.cancelTask.execute(auth, taskId);
      expect(view).toMatchObject({ status: 'fail', error_message: 'cancelled', result_urls: [] });
      await waitFor('the call to be aborted', async () => (adapter.aborted.has(taskId) ? true : null));
      // Aborted by the cancel (not by its deadline or a shutdown): the reason is the cancellation.
      expect(adapter.abortReasons.get(taskId)).toBeInstanceOf(TaskCancelled);
      expect(adapter.abortReasons.get(taskId)).toMatchObject({ message: 'cancelled' });
      expect(adapter.finishedAt.has(taskId)).toBe(false);
      const task = await ended(worker.stores, taskId);
      expect(task).toMatchObject({ status: 'fail', errorMessage: 'cancelled', outputs: [], chargedMicro: null });
      expect([...h.blobs.blobs.keys()].filter((k) => k.startsWith(taskId))).toEqual([]);
      expect(await usageFor(worker.stores, auth.userId, taskId)).toEqual([]);
      expect(await worker.stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000, heldMicro: 0 });
    });
  }
});
