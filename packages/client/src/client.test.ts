import { describe, expect, it } from 'vitest';
import { createGengateClient, GengateApiError, unwrap, waitForTask, type Task } from './index.js';

const TASK_ID = '2a7c9685-e79e-4715-9abb-a77edfdb7de6';
const task = (status: Task['status']): Task => ({
  task_id: TASK_ID,
  status,
  result_urls: status === 'success' ? ['http://h/api/v1/files/x/output-0.png'] : [],
  error_message: null,
  created_at: '2026-11-22T13:16:09.905Z',
});
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** A fetch that answers from a list and records the requests. */
function fakeFetch(answers: (() => Response)[]) {
  const seen: Request[] = [];
  return {
    seen,
    fetch: async (req: Request) => {
      seen.push(req);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next();
    },
  };
}

describe('@gengate/client', () => {
  it('sends the API key as a bearer token to the base URL, typed by the document', async () => {
    const f = fakeFetch([() => json(200, { credits: 10, currency: 'USD', held_credits: 0, available_credits: 10 })]);
    const client = createGengateClient({ baseUrl: 'http://gw.test/api/v1/', apiKey: 'gg_live_secret', fetch: f.fetch });
    const balance = unwrap(await client.GET('/billing/balance'));
    expect(balance.available_credits).toBe(10);
    expect(f.seen[0]?.url).toBe('http://gw.test/api/v1/billing/balance');
    expect(f.seen[0]?.headers.get('authorization')).toBe('Bearer gg_live_secret');
  });

  it('unwrap throws GengateApiError with the status and the stable error type', async () => {
    const f = fakeFetch([() => json(402, { code: 402, message: 'Not enough credits.', error: { type: 'insufficient_credits', param: null } })]);
    const client = createGengateClient({ baseUrl: 'http://gw.test/api/v1', apiKey: 'k', fetch: f.fetch });
    const result = await client.POST('/run/{model_id}', { params: { path: { model_id: 'sandbox.echo-chat' } }, body: { prompt: 'x' } });
    const err = (() => {
      try {
        unwrap(result);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(GengateApiError);
    expect(err).toMatchObject({ status: 402, type: 'insufficient_credits', message: '402 insufficient_credits: Not enough credits.' });
  });

  it('waitForTask polls until the task ends and returns it, a failed task included', async () => {
    const f = fakeFetch([() => json(200, task('waiting')), () => json(200, task('generating')), () => json(200, task('success'))]);
    const client = createGengateClient({ baseUrl: 'http://gw.test/api/v1', apiKey: 'k', fetch: f.fetch });
    const polled: string[] = [];
    const done = await waitForTask(client, TASK_ID, { intervalMs: 1, onPoll: (t) => polled.push(t.status) });
    expect(done.status).toBe('success');
    expect(polled).toEqual(['waiting', 'generating', 'success']);
    expect(f.seen.map((r) => new URL(r.url).pathname)).toEqual(Array(3).fill(`/api/v1/run/tasks/${TASK_ID}`));
    const failed = fakeFetch([() => json(200, { ...task('fail'), error_message: 'boom' })]);
    expect(await waitForTask(createGengateClient({ baseUrl: 'http://gw.test/api/v1', fetch: failed.fetch }), TASK_ID)).toMatchObject({ status: 'fail', error_message: 'boom' });
  });

  it('waitForTask stops on abort and on its timeout, and throws a refused poll', async () => {
    const waiting = () => json(200, task('waiting'));
    const forever = { fetch: async () => waiting() };
    const controller = new AbortController();
    const aborted = waitForTask(createGengateClient({ baseUrl: 'http://gw.test/api/v1', fetch: forever.fetch }), TASK_ID, { intervalMs: 5, signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    await expect(waitForTask(createGengateClient({ baseUrl: 'http://gw.test/api/v1', fetch: forever.fetch }), TASK_ID, { intervalMs: 5, timeoutMs: 30 })).rejects.toThrow(
      /timed out|TimeoutError|aborted/i,
    );
    const missing = fakeFetch([() => json(404, { code: 404, message: 'No task.', error: { type: 'task_not_found', param: 'task_id' } })]);
    await expect(waitForTask(createGengateClient({ baseUrl: 'http://gw.test/api/v1', fetch: missing.fetch }), TASK_ID)).rejects.toMatchObject({ type: 'task_not_found' });
  });
});
