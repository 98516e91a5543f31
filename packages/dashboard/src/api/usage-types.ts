/**
 * Shapes of `GET /api/v1/usage` (docs/openapi.yaml, `UsageReport`). The charts read them only through
 * `usage/series.ts`, so a change of the contract touches that file and this one.
 */

export type UsageGroup = 'day' | 'hour' | 'model' | 'provider' | 'key' | 'user';

/** The figures of a group: credits as decimal credits (100 credits = 1 USD), latency in milliseconds. */
export interface UsageFigures {
  credits: number;
  tasks: number;
  failures: number;
  input_tokens: number;
  output_tokens: number;
  images: number;
  video_seconds: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}

/** One group: only the fields named in `group_by` are present beside the figures. */
export interface UsageRow extends UsageFigures {
  day?: string;
  hour?: string;
  model?: string;
  provider?: string;
  key_id?: string | null;
  key_name?: string | null;
  user_id?: string;
  user_email?: string | null;
}

export interface UsageReport {
  from: string;
  to: string;
  group_by: UsageGroup[];
  data: UsageRow[];
  totals: UsageFigures;
}
