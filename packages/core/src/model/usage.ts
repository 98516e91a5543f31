/**
 * Usage analytics: what a UsageReader answers. Usage is kept per hour (UTC) × owner × API key × model ×
 * provider from each task's settlement, and read grouped by one or two dimensions.
 */

/** A dimension a caller may group by (`member`: the person who submitted, docs/organizations.md). */
export const USAGE_GROUPS = ['day', 'hour', 'model', 'provider', 'key', 'member'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];
/** The dimensions a reader groups by: the caller's, and `user` for the operator's view across users. */
export type UsageDimension = UsageGroup | 'user';

export interface UsageQuery {
  /** Only this user's usage; null: every user's (the operator's view). */
  readonly userId: string | null;
  /** Inclusive, on an hour boundary. */
  readonly from: Date;
  /** Exclusive, on an hour boundary. */
  readonly to: Date;
  /** One or more dimensions, in the order the rows are sorted by. */
  readonly groupBy: readonly UsageDimension[];
  readonly modelId?: string;
  readonly apiKeyId?: string;
  readonly provider?: string;
  /** Only the tasks this member submitted (their user id; a task without a member is its organization's owner's). */
  readonly memberId?: string;
}

/** The additive figures of a group: every one merges by summing. */
export interface UsageCounts {
  readonly creditsMicro: number;
  readonly tasks: number;
  readonly failures: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly images: number;
  /** Seconds of video produced, in milliseconds. */
  readonly videoMs: number;
  /** Submission-to-result latency of the successful tasks, counts per bucket (`latency-histogram.ts`). */
  readonly latencyHistogram: readonly number[];
}

/** One group of usage: the dimensions asked for are set, the others undefined. */
export interface UsageGroupRow {
  /** UTC day, `YYYY-MM-DD`. */
  readonly day?: string;
  readonly hour?: Date;
  readonly modelId?: string;
  readonly provider?: string;
  /** The key (null: tasks submitted without one, e.g. from the dashboard). */
  readonly apiKeyId?: string | null;
  readonly keyName?: string | null;
  readonly userId?: string;
  readonly userEmail?: string | null;
  /** The member who submitted the tasks (a user id) and their e-mail (null when the user no longer exists). */
  readonly memberId?: string;
  readonly memberEmail?: string | null;
  readonly counts: UsageCounts;
}

/** The provider of a model id as the rollups record it: the part before the first dot (`openai.gpt-image-2` -> `openai`). */
export function providerOfModelId(modelId: string): string {
  const dot = modelId.indexOf('.');
  return dot < 0 ? modelId : modelId.slice(0, dot);
}
