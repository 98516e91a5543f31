import { loadavg } from 'node:os';

/** The value after `--name` on the command line (`--rounds 3`), or undefined. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The median of some figures (the mean of the middle two for an even count; NaN for none). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
}

/** The machine's 1, 5 and 15 minute load averages, as printed beside every A/B figure. */
export const load3 = (): string => loadavg().map((x) => x.toFixed(2)).join(' / ');

export const f0 = (n: number): string => Math.round(n).toLocaleString('en-US');
export const f1 = (n: number): string => n.toFixed(1);
export const f2 = (n: number): string => n.toFixed(2);
