/** Balance alerts a user can have at most (every store enforces it on insert: errors/caps.ts). */
export const MAX_ALERTS_PER_USER = 20;
/** Top-ups started and not yet paid, per user (they expire with the processor's checkout session). */
export const MAX_PENDING_TOPUPS_PER_USER = 5;

export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/**
 * payment_method values: `usage` marks a usage deduction; `grant` an operator grant;
 * payment processors use their own id (`stripe`, `manual`).
 */
export type PaymentMethod = 'usage' | 'grant' | 'stripe' | 'manual';

export interface TransactionRecord {
  readonly id: string;
  readonly userId: string;
  /** Signed micro-credits: negative for usage. */
  readonly creditsMicro: number;
  /** Money amount in micro-USD, never negative. */
  readonly amountMicroUsd: number;
  readonly paymentMethod: PaymentMethod;
  readonly status: TransactionStatus;
  readonly taskId: string | null;
  readonly description: string | null;
  readonly createdAt: Date;
}

export interface TransactionView {
  id: string;
  credits: number;
  amount: number;
  payment_method: PaymentMethod;
  status: TransactionStatus;
  created_at: string;
  task_id: string | null;
  description: string | null;
}

export interface BalanceView {
  credits: number;
  currency: 'USD';
  held_credits: number;
  available_credits: number;
}

export interface BalanceAlertRecord {
  readonly id: string;
  readonly userId: string;
  readonly thresholdMicro: number;
  /** False after a mail was sent for a crossing; re-armed when the balance goes back to or above it. */
  readonly armed: boolean;
  readonly createdAt: Date;
}

export interface BalanceAlertView {
  id: string;
  threshold: number;
  armed: boolean;
  created_at: string;
}
