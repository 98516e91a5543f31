import { describe, expect, it } from 'vitest';
import { formatDay, formatUtc } from './dates';

describe('budget reset times', () => {
  it('are shown in UTC whatever the browser zone, and say so', () => {
    expect(formatUtc('2026-11-27T00:00:00.000Z')).toBe('27 Nov 2026, 00:00 UTC');
    expect(formatUtc('2026-12-01T00:00:00+02:00')).toBe('30 Nov 2026, 22:00 UTC');
  });

  it('a missing or broken time is a dash', () => {
    expect(formatUtc(null)).toBe('—');
    expect(formatUtc(undefined)).toBe('—');
    expect(formatUtc('not a date')).toBe('—');
    expect(formatDay(null)).toBe('—');
    expect(formatDay('not a date')).toBe('—');
    expect(formatDay('2026-11-26T12:00:00Z')).toMatch(/^2[67] Nov 2026$/); // the browser's day
  });
});
