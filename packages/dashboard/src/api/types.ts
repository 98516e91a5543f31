/** Shapes of the gateway's JSON (docs/api.md). */

export type Modality = 'video' | 'image' | 'chat';
export type TaskStatus = 'waiting' | 'generating' | 'success' | 'fail';

export interface SessionInfo {
  user: { id: string; email: string; role: 'user' | 'operator' };
  csrf_token: string;
  expires_at: string;
}

/** POST /dashboard/api/auth/verify: signed in, or asked to confirm the account first (nothing changed yet). */
export type VerifyAnswer =
  | (SessionInfo & { signed_in: true; created: boolean })
  | { signed_in: false; confirm: { email: string; requested_in_this_browser: boolean; signed_in_as: string | null } };

export interface DashboardConfig {
  open_signup: boolean;
  payment_processor: string;
}

export interface Balance {
  credits: number;
  currency: string;
  held_credits: number;
  available_credits: number;
}

export interface Transaction {
  id: string;
  credits: number;
  amount: number;
  payment_method: string;
  status: string;
  created_at: string;
  task_id: string | null;
  description: string | null;
}

export interface Paged<T> {
  data: T[];
  total: number;
  page: number;
  per_page: number;
}

export interface Alert {
  id: string;
  threshold: number;
  armed: boolean;
  created_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  key: string;
  /** The member who owns the key (their user id). */
  member_id: string;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
  rate_limit_per_day: number | null;
  ip_whitelist: string[];
  spend_limit: number | null;
  budget_period: BudgetPeriod;
  soft_threshold_percent: number | null;
  allowed_models: string[] | null;
  allowed_providers: string[] | null;
  allowed_modalities: string[] | null;
  max_concurrent_tasks: number | null;
  spent: number;
  remaining: number | null;
  resets_at: string | null;
  concurrent_tasks: number;
  created_at: string;
  last_used_at: string | null;
}

export type BudgetPeriod = 'day' | 'week' | 'month' | 'none';

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  created_at: string;
}

export interface Task {
  task_id: string;
  status: TaskStatus;
  result_urls: string[];
  error_message: string | null;
  created_at: string;
  progress?: number;
  /** The route that served the task (a provider model id), once an attempt reached an upstream. */
  route?: { id: string; provider: string };
  extensions?: { attempts: RouteAttempt[] };
}

/** One attempt of a task on a route. */
export interface RouteAttempt {
  route: string;
  provider: string;
  outcome: 'success' | 'started' | 'error' | 'skipped';
  error_class: string | null;
  upstream_status: number | null;
  started_at: string;
  ended_at: string;
}

export interface TaskListItem extends Task {
  model_id: string;
  modality: Modality;
  prompt: string | null;
  quoted_credits: number;
  held_credits: number;
  charged_credits: number | null;
  warnings: { param: string; message: string }[];
  callback_url: string | null;
  submitted_with_api_key: boolean;
  started_at: string | null;
  finished_at: string | null;
}

export interface CallbackAttempt {
  attempt: number;
  url: string;
  status_code: number | null;
  delivered: boolean;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

export interface Model {
  id: string;
  name: string;
  provider: string;
  modality: Modality;
  description: string;
  tags: string[];
  is_popular: boolean;
  is_active: boolean;
}

export interface ModelDetail extends Model {
  inactive_reason: string | null;
  capabilities: Record<string, unknown> & { modality: Modality; promptRequired?: boolean };
  parameters: JsonSchema;
  poll_interval_seconds: number;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: (string | number)[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  items?: JsonSchema;
  description?: string;
  anyOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
}

export interface PriceLine {
  unit: string;
  resolution: string | null;
  conditions: Record<string, unknown> | null;
  credits: number;
  usd: number;
}

export interface Pricing {
  model_id: string;
  currency: string;
  credits_per_usd: number;
  prices: PriceLine[];
}

export interface Quote {
  model_id: string;
  credits: number;
  usd: number;
  available_credits: number;
  sufficient: boolean;
}

export interface TopupStarted {
  transaction_id: string;
  status: string;
  amount: number;
  credits: number;
  payment_method: string;
  checkout_url: string | null;
}

export interface UserSummary {
  id: string;
  email: string;
  role: 'user' | 'operator';
  created_at: string;
  credits: number;
  held_credits: number;
  granted_credits: number;
  active_keys: number;
  revoked_keys: number;
  tasks: number;
}

export interface ProviderRow {
  provider: string;
  configured: boolean;
  reason: string | null;
  settings: string[];
  models: number;
  active_models: number;
}

export interface QueueView {
  tasks: { modality: string; status: string; admitted: boolean | null; count: number }[];
  queues: { queue: string; queued: number; ready: number; deferred: number; active: number; failed: number }[] | null;
}

export interface FailuresView {
  since: string;
  data: { provider: string; failures: number; models: { model_id: string; failures: number; last_at: string; last_message: string }[] }[];
}

/** One route's circuit breaker (GET /dashboard/api/operator/routes). */
export interface RouteHealthRow {
  route_id: string;
  state: 'closed' | 'open' | 'half_open';
  open_until: string | null;
  consecutive_failures: number;
  recent_attempts: number;
  recent_failures: number;
  latency_p50_ms: number | null;
}
