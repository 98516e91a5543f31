import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../api/usage-types';
import { latencyByModel, MAX_STACKED_SERIES, OTHER, rangeOf, spendByDayAndModel, tasksByDay } from './series';

const row = (over: Partial<UsageRow>): UsageRow => ({
  credits: 0,
  tasks: 0,
  failures: 0,
  input_tokens: 0,
  output_tokens: 0,
  images: 0,
  video_seconds: 0,
  latency_p50_ms: null,
  latency_p95_ms: null,
  ...over,
});

describe('the usage series the charts draw', () => {
  it('a range is whole UTC days ending today, `to` the next midnight', () => {
    const r = rangeOf(7, new Date('2026-11-26T01:30:00Z'));
    expect(r.days).toEqual(['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26']);
    expect(r.from).toBe('2026-11-20T00:00:00.000Z');
    expect(r.to).toBe('2026-11-27T00:00:00.000Z');
    expect(rangeOf(90, new Date('2026-03-01T23:59:59Z')).days).toHaveLength(90);
  });

  it('spend per day stacked by model: every day present, sums exact in micro-credits, biggest model first', () => {
    const days = ['2026-11-24', '2026-11-25', '2026-11-26'];
    const s = spendByDayAndModel(
      [
        row({ day: '2026-11-24', model: 'sandbox.pixel-image', credits: 0.1 }),
        row({ day: '2026-11-24', model: 'sandbox.motion-video', credits: 25 }),
        row({ day: '2026-11-26', model: 'sandbox.pixel-image', credits: 0.2 }),
        row({ day: '2026-11-01', model: 'sandbox.pixel-image', credits: 99 }), // outside the range: not drawn
      ],
      days,
    );
    expect(s.series).toEqual([
      { key: 's0', name: 'sandbox.pixel-image' },
      { key: 's1', name: 'sandbox.motion-video' },
    ]);
    expect(s.points.map((p) => p.day)).toEqual(days);
    expect(s.points[0]).toMatchObject({ s0: 0.1, s1: 25, total: 25.1 });
    expect(s.points[1]).toMatchObject({ s0: 0, s1: 0, total: 0 });
    expect(s.points[2]).toMatchObject({ s0: 0.2, total: 0.2 });
    expect(s.totalCredits).toBe(25.3);
  });

  it('more models than colours: the smallest are added up as "other models"', () => {
    const rows = Array.from({ length: MAX_STACKED_SERIES + 3 }, (_, i) => row({ day: '2026-11-26', model: `m${String(i).padStart(2, '0')}`, credits: 100 - i }));
    const s = spendByDayAndModel(rows, ['2026-11-26']);
    expect(s.series).toHaveLength(MAX_STACKED_SERIES);
    expect(s.series.at(-1)).toEqual({ key: 'other', name: OTHER });
    const shownOnes = MAX_STACKED_SERIES - 1;
    const otherSum = rows.slice(shownOnes).reduce((a, r) => a + r.credits, 0);
    expect(s.points[0]?.['other']).toBe(otherSum);
    expect(s.points[0]?.total).toBe(rows.reduce((a, r) => a + r.credits, 0));
  });

  it('tasks and failure rate per day, summed over models; no rate on a day without tasks', () => {
    const t = tasksByDay(
      [row({ day: '2026-11-25', model: 'a', tasks: 2, failures: 1 }), row({ day: '2026-11-25', model: 'b', tasks: 1, failures: 0 })],
      ['2026-11-25', '2026-11-26'],
    );
    expect(t).toEqual([
      { day: '2026-11-25', tasks: 3, failures: 1, failure_rate: 33.3 },
      { day: '2026-11-26', tasks: 0, failures: 0, failure_rate: null },
    ]);
  });

  it('latency per model, slowest p95 first; models without finished tasks are left out', () => {
    const l = latencyByModel([
      row({ model: 'fast', tasks: 4, latency_p50_ms: 120, latency_p95_ms: 300 }),
      row({ model: 'slow', tasks: 1, latency_p50_ms: 4000, latency_p95_ms: 9000 }),
      row({ model: 'none', tasks: 1 }),
    ]);
    expect(l.map((p) => p.model)).toEqual(['slow', 'fast']);
    expect(l[1]).toEqual({ model: 'fast', p50: 120, p95: 300, tasks: 4 });
  });
});
