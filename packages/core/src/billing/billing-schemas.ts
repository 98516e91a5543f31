import { z } from 'zod';
import { MICRO_PER_CREDIT } from '../model/pricing.js';

export const TOPUP_MIN_USD = 1;
export const TOPUP_MAX_USD = 10_000;

const twoDecimals = (v: number) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6;

/**
 * True when v is (the double nearest to) a number with at most six decimals: the precision of a
 * balance, which is an integer number of micro-credits. Dividing two integers is correctly rounded,
 * so the round trip is exact for every such number and fails for any finer one.
 */
export const atMostSixDecimals = (v: number) => Math.round(v * MICRO_PER_CREDIT) / MICRO_PER_CREDIT === v;

/** POST /billing/topup body: amount in USD, 1.00 to 10,000.00, at most two decimals. */
export const topupSchema = z.strictObject({
  amount: z
    .number({ error: 'amount must be a number (USD)' })
    .min(TOPUP_MIN_USD, `amount must be at least ${TOPUP_MIN_USD} USD`)
    .max(TOPUP_MAX_USD, `amount must be at most ${TOPUP_MAX_USD} USD`)
    .refine(twoDecimals, 'amount must have at most two decimals'),
});

/** POST /billing/alerts body: threshold in credits, positive, at most six decimals (the precision of a balance). */
export const createAlertSchema = z.strictObject({
  threshold: z
    .number({ error: 'threshold must be a number (credits)' })
    .positive('threshold must be positive')
    .max(1_000_000_000)
    .refine(atMostSixDecimals, 'threshold must have at most six decimals (1 micro-credit)'),
});
