/** The requests the usage page makes: the paths are built here only, so the page and its test agree. */
import { query } from '../api/client';
import type { UsageGroup } from '../api/usage-types';

export const USAGE_PATH = '/api/v1/usage';

export function usagePath(range: { from: string; to: string }, groupBy: readonly UsageGroup[], format?: 'csv'): string {
  return `${USAGE_PATH}${query({ from: range.from, to: range.to, group_by: groupBy.join(','), format })}`;
}
