/** Active API keys a user can have at most (every store enforces it on insert: errors/caps.ts). */
export const MAX_KEYS_PER_USER = 50;

export interface ApiKeyLimits {
  readonly perMinute: number | null;
  readonly perHour: number | null;
  readonly perDay: number | null;
}

/** How often a key's spend limit starts again (UTC boundaries: docs/api-keys.md). `none`: one budget for the key's life. */
export const BUDGET_PERIODS = ['day', 'week', 'month', 'none'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/**
 * A key's own spend controls, checked when a submission holds credits (in the same transaction).
 * Every field is independent; null = no such limit. An organization's or member's limits (a later
 * layer) sit above these: a key keeps its own.
 */
export interface KeyControls {
  /** Credits (held + charged) the key may spend per period, in micro-credits. */
  readonly spendLimitMicro: number | null;
  readonly budgetPeriod: BudgetPeriod;
  /** Percent (1-100) of the spend limit at which one mail is sent per period. */
  readonly softThresholdPercent: number | null;
  /** Model ids / provider ids / modalities the key may run; null = all. */
  readonly allowedModels: readonly string[] | null;
  readonly allowedProviders: readonly string[] | null;
  readonly allowedModalities: readonly string[] | null;
  /** Most tasks of this key in `waiting` or `generating` at once. */
  readonly maxConcurrentTasks: number | null;
}

export const NO_KEY_CONTROLS: KeyControls = {
  spendLimitMicro: null,
  budgetPeriod: 'none',
  softThresholdPercent: null,
  allowedModels: null,
  allowedProviders: null,
  allowedModalities: null,
  maxConcurrentTasks: null,
};


/** Why a key refused a submission (nothing was held or written). */
export type KeyRefusal =
  | { readonly outcome: 'model_not_allowed'; readonly allowed: readonly string[] }
  | { readonly outcome: 'provider_not_allowed'; readonly allowed: readonly string[] }
  | { readonly outcome: 'modality_not_allowed'; readonly allowed: readonly string[] }
  | { readonly outcome: 'key_concurrency_exceeded'; readonly limit: number }
  | { readonly outcome: 'key_budget_exceeded'; readonly limitMicro: number; readonly spentMicro: number; readonly resetsAt: Date | null };

/** A key's controls, NO_KEY_CONTROLS when its store keeps none. */
export function keyControlsOf(k: Pick<ApiKeyRecord, 'controls'>): KeyControls {
  return k.controls ?? NO_KEY_CONTROLS;
}

/** What a key has used in its current budget period (GET /api-keys). */
export interface KeyUsage {
  readonly periodStart: Date;
  /** Held (tasks not settled yet) plus charged (settled) in this period, micro-credits. */
  readonly spentMicro: number;
  /** Tasks of the key in `waiting` or `generating`. */
  readonly activeTasks: number;
}

export interface ApiKeyRecord {
  readonly id: string;
  /** The organization the key belongs to and whose credits it spends (docs/organizations.md). */
  readonly userId: string;
  /** The member who owns the key (their role and spend limit apply); absent = `userId` (a personal organization's owner). */
  readonly memberId?: string;
  readonly name: string;
  /** SHA-256 hex of the full secret; the secret itself is never stored. */
  readonly secretHash: string;
  /** Display mask: prefix and last four characters. */
  readonly mask: string;
  readonly limits: ApiKeyLimits;
  /** IPv4/IPv6 addresses or CIDR ranges; empty = any address. */
  readonly ipWhitelist: readonly string[];
  /** The key's spend controls; absent (a KeyStore that keeps none, e.g. one written before them) = NO_KEY_CONTROLS. */
  readonly controls?: KeyControls;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** A listed key (secret masked). */
export interface ApiKeyView {
  id: string;
  name: string;
  key: string;
  /** The member who owns the key (a user id; in a personal organization, its user): docs/organizations.md. */
  member_id: string;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
  rate_limit_per_day: number | null;
  ip_whitelist: string[];
  /** Credits per budget period; null = no key budget (the user's balance still applies). */
  spend_limit: number | null;
  budget_period: BudgetPeriod;
  soft_threshold_percent: number | null;
  allowed_models: string[] | null;
  allowed_providers: string[] | null;
  allowed_modalities: string[] | null;
  max_concurrent_tasks: number | null;
  /** Held + charged credits in the current period. */
  spent: number;
  /** spend_limit - spent (never below 0); null without a spend limit. */
  remaining: number | null;
  /** When the current period ends (ISO 8601, UTC); null for `none`. */
  resets_at: string | null;
  /** Tasks of the key in `waiting` or `generating` now. */
  concurrent_tasks: number;
  created_at: string;
  last_used_at: string | null;
}

/** The create response: the only place the full secret appears. */
export interface CreatedApiKeyView {
  id: string;
  name: string;
  key: string;
  created_at: string;
}
