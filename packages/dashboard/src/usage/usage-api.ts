/** The requests the usage views make: the paths are built here only, so the pages and their tests agree. */
import { query } from '../api/client';
import type { UsageGroup } from '../api/usage-types';

export const USAGE_PATH = '/api/v1/usage';
/** Every user's usage (operators only), the same parameters plus the `user` dimension. */
export const OPERATOR_USAGE_PATH = '/dashboard/api/operator/usage';

export function usagePath(range: { from: string; to: string }, groupBy: readonly UsageGroup[], format?: 'csv', path: string = USAGE_PATH): string {
  return `${path}${query({ from: range.from, to: range.to, group_by: groupBy.join(','), format })}`;
}
