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
});
