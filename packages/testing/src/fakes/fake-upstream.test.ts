import { afterEach, describe, expect, it } from 'vitest';
import { FakeUpstream } from './fake-upstream.js';

describe('FakeUpstream hold and release', () => {
  let fake: FakeUpstream | null = null;
  afterEach(async () => {
    await fake?.close();
    fake = null;
  });

  it('holds every call open (in flight, unanswered) until release, shows who is held, and wakes waiters on each event', async () => {
    fake = await FakeUpstream.start([{ method: 'POST', path: '/echo', handler: (c) => ({ body: { got: c.body } }) }]);
    const f = fake;
    f.hold();
    const post = (who: string) => fetch(`${f.url}/echo`, { method: 'POST', headers: { Authorization: `Bearer ${who}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ who }) });
    const answers = [post('a'), post('b')];
    const held = await f.waitUntil(() => f.held.length === 2 && f.held, 5_000, 'two held calls');
    expect(held.map((c) => c.credential).sort()).toEqual(['Bearer a', 'Bearer b']);
    expect(f.inFlight).toBe(2);
    f.release();
    const bodies = await Promise.all(answers.map(async (a) => ((await a).json() as Promise<{ got: { who: string } }>)));
    expect(bodies.map((b) => b.got.who)).toEqual(['a', 'b']);
    await f.waitUntil(() => f.inFlight === 0, 5_000, 'no call in flight');
    expect(f.maxInFlight).toBe(2);
    // Released: later calls are answered at once.
    expect((await post('c')).status).toBe(200);
    expect(f.held).toEqual([]);
  });

  it('hold(match) holds only the calls it picks and answers the others meanwhile', async () => {
    fake = await FakeUpstream.start([
      { method: 'GET', path: '/status', handler: () => ({ body: { status: 'done' } }) },
      { method: 'GET', path: '/files/a.mp4', handler: () => ({ body: 'bytes' }) },
    ]);
    const f = fake;
    f.hold((call) => call.path.startsWith('/files/'));
    const download = fetch(`${f.url}/files/a.mp4`);
    await f.waitUntil(() => f.held.length === 1, 5_000, 'the download to be held');
    expect((await (await fetch(`${f.url}/status`)).json()) as unknown).toEqual({ status: 'done' });
    expect(f.held.map((c) => c.path)).toEqual(['/files/a.mp4']);
    f.release();
    expect(await (await download).text()).toBe('bytes');
  });

  it('forgets a held call whose client went away', async () => {
    fake = await FakeUpstream.start([{ method: 'GET', path: '/slow', handler: () => ({ body: 'ok' }) }]);
    const f = fake;
    f.hold();
    const abort = new AbortController();
    const pending = fetch(`${f.url}/slow`, { signal: abort.signal }).catch((err: unknown) => err);
    await f.waitUntil(() => f.held.length === 1, 5_000, 'one held call');
    abort.abort();
    await pending;
    await f.waitUntil(() => f.held.length === 0 && f.inFlight === 0, 5_000, 'the held call to be dropped');
    expect(f.calls).toHaveLength(1);
  });
});
