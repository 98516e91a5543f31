import type { Clock, Gengate, ProviderAdapter, SchedulingOptions } from '@gengate/core';

/**
 * The rows that hold money and task state, read straight from the implementation's storage (not through
 * the ports: the cached balance of a PostgreSQL account row is one of the things checked). Only rows of
 * the given users, their tasks and their alerts: an implementation may hold other users' rows.
 */
export interface RawMoneyState {
  /** The cached account figures (an implementation without a cache gives the sums it computes). */
  readonly accounts: readonly { readonly userId: string; readonly balanceMicro: number; readonly heldMicro: number }[];
  readonly transactions: readonly {
    readonly userId: string;
    readonly taskId: string | null;
    readonly creditsMicro: number;
    readonly amountMicroUsd: number;
    readonly paymentMethod: string;
    readonly status: string;
    readonly description: string | null;
  }[];
  readonly holds: readonly { readonly userId: string; readonly taskId: string; readonly amountMicro: number; readonly state: string }[];
  readonly tasks: readonly {
    readonly id: string;
    readonly userId: string;
    readonly status: string;
    readonly admitted: boolean;
    readonly attempts: number;
    readonly quotedMicro: number;
    readonly chargedMicro: number | null;
    readonly errorMessage: string | null;
  }[];
  readonly alerts: readonly { readonly userId: string; readonly thresholdMicro: number; readonly armed: boolean }[];
  /** Jobs still queued: generation and callback jobs by task, alert mails by the user of their alert. */
  /** Key soft-threshold mails (`key-budget-mail`) are on the alert-mail queue, by the user of their key. */
  readonly jobs: readonly { readonly queue: 'generate' | 'callback' | 'alert-mail' | 'key-budget-mail'; readonly taskId: string | null; readonly userId: string | null }[];
}

/** One implementation of intake and completion, opened by a MoneyContractHarness. */
export interface MoneyImplementation {
  /** The use cases over the implementation's ports, built with the adapters and scheduling given to `open`. */
  readonly gengate: Gengate;
  /** The state behind the given users (see RawMoneyState). */
  readState(userIds: readonly string[]): Promise<RawMoneyState>;
  /** Optional: makes the user's idempotency records this many hours older (to test the 24-hour window). */
  ageIdempotencyKeys?(userId: string, hours: number): Promise<void>;
  close(): Promise<void>;
}

export interface MoneyImplementationConfig {
  /** Bind exactly these adapters (the kit's fixed-price model). */
  readonly adapters: readonly ProviderAdapter[];
  readonly scheduling: Pick<SchedulingOptions, 'maxQueuedPerUser' | 'maxAttempts'> & { readonly maxRunningPerUser: SchedulingOptions['maxRunningPerUser'] };
  /** The use cases' clock (give it to createGengate): the driver moves it for budget-period commands. */
  readonly clock?: MoneyClock;
}

/** A clock the money driver moves (key budget periods are decided by the submission's time). */
export class MoneyClock implements Clock {
  constructor(private at = new Date('2026-11-26T10:00:00.000Z')) {}
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}

/**
 * What an implementer gives the money contract: a factory of implementations. `open` may hand out a
 * fresh implementation or reuse storage across calls (the contract makes new users and reads only theirs).
 */
export interface MoneyContractHarness {
  open(config: MoneyImplementationConfig): Promise<MoneyImplementation>;
  /** Called once when the suite ends. */
  close?(): Promise<void>;
}
