import { z } from 'zod';

export const TOPUP_MIN_USD = 1;
export const TOPUP_MAX_USD = 10_000;
export const MAX_ALERTS_PER_USER = 20;
/** Top-ups started and not yet paid, per user (they expire with the processor's checkout session). */
export const MAX_PENDING_TOPUPS_PER_USER = 5;

const twoDecimals = (v: number) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6;

/** POST /billing/topup body: amount in USD, 1.00 to 10,000.00, at most two decimals. */
export const topupSchema = z.strictObject({
  amount: z
    .number({ error: 'amount must be a number (USD)' })
    .min(TOPUP_MIN_USD, `amount must be at least ${TOPUP_MIN_USD} USD`)
    .max(TOPUP_MAX_USD, `amount must be at most ${TOPUP_MAX_USD} USD`)
    .refine(twoDecimals, 'amount must have at most two decimals'),
});

/** POST /billing/alerts body: threshold in credits, positive, at most two decimals. */
export const createAlertSchema = z.strictObject({
  threshold: z
    .number({ error: 'threshold must be a number (credits)' })
    .positive('threshold must be positive')
    .min(0.01, 'threshold must be at least 0.01 credits')
    .max(1_000_000_000)
    .refine(twoDecimals, 'threshold must have at most two decimals'),
});
