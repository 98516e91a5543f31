import { describe, expect, it } from 'vitest';
import { TurnBatch } from './turn-batch.js';

describe('TurnBatch', () => {
  it('runs the calls of one turn together and answers each its own result, in order', async () => {
    const runs: number[][] = [];
    const batch = new TurnBatch<number, string>(async (xs) => {
      runs.push([...xs]);
      return xs.map((x) => `r${x}`);
    });
    const answers = await Promise.all([batch.call(1), batch.call(2), batch.call(3)]);
    expect(answers).toEqual(['r1', 'r2', 'r3']);
    expect(runs).toEqual([[1, 2, 3]]);
  });

  it('calls made in a later turn go to a later run', async () => {
    const runs: number[][] = [];
    const batch = new TurnBatch<number, number>(async (xs) => {
      runs.push([...xs]);
      return xs;
    });
    const first = batch.call(1);
    await first;
    expect(await Promise.all([batch.call(2), batch.call(3)])).toEqual([2, 3]);
    expect(runs).toEqual([[1], [2, 3]]);
  });

  it('splits a turn of more than `max` calls into runs of at most `max`', async () => {
    const runs: number[][] = [];
    const batch = new TurnBatch<number, number>(async (xs) => {
      runs.push([...xs]);
      return xs.map((x) => x * 10);
    }, { max: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map((x) => batch.call(x)))).toEqual([10, 20, 30, 40, 50]);
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('a failed run rejects every call of it, and only those; so does an answer of the wrong length', async () => {
    let n = 0;
    const batch = new TurnBatch<number, number>(async (xs) => {
      n++;
      if (n === 1) throw new Error('connection lost');
      return xs.slice(1);
    }, { max: 2 });
    const results = await Promise.allSettled([batch.call(1), batch.call(2), batch.call(3), batch.call(4)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'connection lost',
      'connection lost',
      'a batch of 2 calls was answered with 1 results',
      'a batch of 2 calls was answered with 1 results',
    ]);
  });

  it('with a key, runs only the calls of one key together, in arrival order, each key on its own', async () => {
    const runs: string[][] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const batch = new TurnBatch<string, string>(
      async (xs) => {
        runs.push([...xs]);
        if (xs[0]?.startsWith('a')) await slow;
        return xs.map((x) => x.toUpperCase());
      },
      { max: 2, keyOf: (x) => x[0] },
    );
    const [a1, b1, a2, b2, a3] = ['a1', 'b1', 'a2', 'b2', 'a3'].map((x) => batch.call(x));
    const a = Promise.all([a1, a2, a3]);
    const b = Promise.all([b1, b2]);
    // b's run answers while a's first run still waits.
    expect(await b).toEqual(['B1', 'B2']);
    release();
    expect(await a).toEqual(['A1', 'A2', 'A3']);
    expect(runs).toEqual([['a1', 'a2'], ['a3'], ['b1', 'b2']]);
  });

  it('with inFlightPerKey, the calls made while a key has that many runs in flight go together in its next run', async () => {
    const runs: string[][] = [];
    const answers: (() => void)[] = [];
    const batch = new TurnBatch<string, string>(
      async (xs) => {
        runs.push([...xs]);
        await new Promise<void>((r) => answers.push(r));
        return [...xs];
      },
      { keyOf: (x) => x[0], inFlightPerKey: 1 },
    );
    const waitForRuns = async (n: number) => {
      while (runs.length < n) await new Promise((r) => setImmediate(r));
    };
    const first = batch.call('a1');
    await waitForRuns(1);
    // Three more turns while a1's run is in flight, and another key's call, which does not wait.
    const later = [batch.call('a2')];
    await new Promise((r) => setImmediate(r));
    later.push(batch.call('a3'));
    const other = batch.call('b1');
    await new Promise((r) => setImmediate(r));
    later.push(batch.call('a4'));
    await waitForRuns(2);
    expect(runs).toEqual([['a1'], ['b1']]);
    answers[1]?.();
    expect(await other).toBe('b1');
    answers[0]?.();
    expect(await first).toBe('a1');
    await waitForRuns(3);
    expect(runs[2]).toEqual(['a2', 'a3', 'a4']);
    answers[2]?.();
    expect(await Promise.all(later)).toEqual(['a2', 'a3', 'a4']);
  });
});
