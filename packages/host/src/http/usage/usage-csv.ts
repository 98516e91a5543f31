import { USAGE_FIGURE_COLUMNS, USAGE_GROUP_COLUMNS, type UsageReportView, type UsageRowView } from '@gengate/core';
import { stringify } from 'csv-stringify/sync';

/** Whether a usage request asked for CSV: `format=csv`, or `Accept: text/csv` without `format=json`. */
export function wantsCsv(format: 'json' | 'csv' | null, accept: string | undefined): boolean {
  if (format !== null) return format === 'csv';
  return accept !== undefined && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);
}

/**
 * A usage report as CSV (RFC 4180 through csv-stringify): a header line, then one line per row with its
 * group columns first, credits with six decimals, empty cells for null. No totals line (sum the columns).
 */
export function usageCsv(report: UsageReportView): string {
  const columns: (keyof UsageRowView)[] = [...report.group_by.flatMap((g) => USAGE_GROUP_COLUMNS[g]), ...USAGE_FIGURE_COLUMNS];
  const cell = (row: UsageRowView, c: keyof UsageRowView): string => {
    const v = row[c];
    if (v === null || v === undefined) return '';
    if (c === 'credits' && typeof v === 'number') return v.toFixed(6);
    return String(v);
  };
  return stringify([columns, ...report.data.map((row) => columns.map((c) => cell(row, c)))], { record_delimiter: '\n' });
}
