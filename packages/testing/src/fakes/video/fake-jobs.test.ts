import { describe, expect, it, vi } from 'vitest';
import { FakeUpstream } from '../fake-upstream.js';
import { FakeJobBook } from './fake-jobs.js';

describe('FakeJobBook hold and release', () => {
  it('keeps held jobs running past their duration, holds their webhooks, and ends them (webhook sent) on release', async () => {
    const receiver = await FakeUpstream.start([{ method: 'POST', path: '/hook', handler: () => ({ body: { ok: true } }) }]);
    const book = new FakeJobBook(async (job) => ({ jobId: job.id, url: `${receiver.url}/hook`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: job.id }) }), {
      durationMs: 1,
    });
    try {
      book.hold();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const held = book.submit({ model: 'm', input: {}, webhookUrl: `${receiver.url}/hook` });
      // The webhook falls due (duration 1 ms) while held: nothing is delivered.
      vi.advanceTimersByTime(10);
      vi.useRealTimers();
      const later = Date.now() + 60_000;
      expect(book.heldJobs).toBe(1);
      expect(book.phase(held, later)).toBe('running');
      expect(book.progress(held, later)).toBeLessThan(1);
      expect(receiver.calls).toHaveLength(0);
      expect(book.deliveries).toHaveLength(0);
      book.release();
      expect(book.heldJobs).toBe(0);
      expect(book.phase(held, later)).toBe('succeeded');
      await receiver.waitForCalls(1, 5_000);
      expect(receiver.calls[0]?.body).toEqual({ id: held.id });
      // Released: a new job ends on its own again.
      const free = book.submit({ model: 'm', input: {}, webhookUrl: null });
      expect(book.phase(free, later)).toBe('succeeded');
    } finally {
      vi.useRealTimers();
      book.close();
      await receiver.close();
    }
  });

  it('keepWebhooks: sends no webhook on its own, and hands the signed message to the test to post', async () => {
    const receiver = await FakeUpstream.start([{ method: 'POST', path: '/hook', handler: () => ({ body: { ok: true } }) }]);
    const book = new FakeJobBook(async (job) => ({ jobId: job.id, url: job.webhookUrl ?? '', headers: { 'x-sig': `sig-${job.id}` }, body: JSON.stringify({ id: job.id }) }), {
      durationMs: 1,
    });
    try {
      book.keepWebhooks();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const job = book.submit({ model: 'm', input: {}, webhookUrl: `${receiver.url}/hook` });
      vi.advanceTimersByTime(10);
      vi.useRealTimers();
      expect(book.phase(job, Date.now() + 60_000)).toBe('succeeded');
      expect(await book.webhookMessage(job)).toEqual({ jobId: job.id, url: `${receiver.url}/hook`, headers: { 'x-sig': `sig-${job.id}` }, body: JSON.stringify({ id: job.id }) });
      expect(await book.webhookMessage(book.submit({ model: 'm', input: {}, webhookUrl: null }))).toBeNull();
      // Nothing was sent by the fake itself: no call can be on its way (sendWebhook returns before fetching).
      expect(book.deliveries).toHaveLength(0);
      expect(receiver.calls).toHaveLength(0);
    } finally {
      vi.useRealTimers();
      book.close();
      await receiver.close();
    }
  });
});
