import { describe, expect, it } from 'vitest';
import { checkUsageQuery, usageQuerySchema } from './usage-query.schema.js';

const NOW = new Date('2026-11-26T01:30:25.000Z');
const check = (q: Record<string, string>) => checkUsageQuery(usageQuerySchema.parse(q), NOW);

describe('usage query', () => {
  it('defaults to the 30 days up to now rounded up to the hour, grouped by day', () => {
    expect(check({})).toEqual({ ok: true, from: new Date('2026-10-27T02:00:00.000Z'), to: new Date('2026-11-26T02:00:00.000Z'), groupBy: ['day'] });
  });

  it('rounds from down and to up to the hour, in UTC whatever the offset given', () => {
    expect(check({ from: '2026-11-01T10:59:59+02:00', to: '2026-11-02T00:00:01Z' })).toMatchObject({
      from: new Date('2026-11-01T08:00:00.000Z'),
      to: new Date('2026-11-02T01:00:00.000Z'),
    });
    expect(check({ from: '2026-11-01', to: '2026-11-02' })).toMatchObject({ from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-02T00:00:00Z') });
  });

  it('takes one or two dimensions, in order (member among them), and refuses unknown, repeated and day with hour', () => {
    expect(check({ group_by: 'model,day' })).toMatchObject({ ok: true, groupBy: ['model', 'day'] });
    expect(check({ group_by: 'member,model' })).toMatchObject({ ok: true, groupBy: ['member', 'model'] });
    for (const group_by of ['week', 'day,day', 'day,hour', 'day,model,key', '', 'user']) {
      expect(check({ group_by })).toMatchObject({ ok: false, param: 'group_by' });
    }
  });

  it('refuses an empty or reversed range and one over the limit (31 days by hour, 366 otherwise)', () => {
    expect(check({ from: '2026-11-02', to: '2026-11-01' })).toMatchObject({ ok: false, param: 'to' });
    expect(check({ from: '2026-11-01T10:00:00Z', to: '2026-11-01T10:00:00Z' })).toMatchObject({ ok: false, param: 'to' });
    expect(check({ from: '2025-01-01', to: '2026-01-03' })).toMatchObject({ ok: false, param: 'from' });
    expect(check({ from: '2025-01-01', to: '2026-01-02' })).toMatchObject({ ok: true });
    expect(check({ group_by: 'hour', from: '2026-10-01', to: '2026-11-02' })).toMatchObject({ ok: false, param: 'from' });
    expect(check({ group_by: 'hour', from: '2026-10-01', to: '2026-11-01' })).toMatchObject({ ok: true });
  });

  it('refuses malformed values and unknown parameters in the schema', () => {
    for (const q of [{ from: '01/11/2026' }, { to: '2026-11-01T00:00:00' }, { key_id: 'k' }, { format: 'xml' }, { colour: 'red' }]) {
      expect(usageQuerySchema.safeParse(q).success).toBe(false);
    }
  });
});
