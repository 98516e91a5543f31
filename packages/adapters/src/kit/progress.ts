/**
 * Progress from a job's log lines, as the provider prints it: the last line with a percentage
 * (`45%|████  | 9/20` from tqdm, or `progress: 45%`). Null when no line says.
 */
export function progressFromLogs(lines: readonly string[]): number | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const tqdm = /^\s*(\d{1,3})%\s*\|.*?\|\s*(\d+)\/(\d+)/.exec(lines[i] ?? '');
    if (tqdm) {
      const total = Number(tqdm[3]);
      if (total > 0) return clamp(Number(tqdm[2]) / total);
    }
    const pct = /(\d{1,3}(?:\.\d+)?)\s*%/.exec(lines[i] ?? '');
    if (pct) return clamp(Number(pct[1]) / 100);
  }
  return null;
}

function clamp(n: number): number {
  return Math.min(1, Math.max(0, n));
}
