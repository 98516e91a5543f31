/** Money is kept in integer micro-units: 1 credit = 1,000,000 micro-credits; 1 USD = 100 credits. */
export const MICRO_PER_CREDIT = 1_000_000;
export const CREDITS_PER_USD = 100;

/** Micro-credits (integer) to the credits number shown by the API (exact up to 6 decimals). */
export function microToCredits(micro: number): number {
  return micro / MICRO_PER_CREDIT;
}

/** Credits as given by a client or operator (at most 6 decimals) to integer micro-credits. */
export function creditsToMicro(credits: number): number {
  return Math.round(credits * MICRO_PER_CREDIT);
}

/** Value of a number of micro-credits in micro-USD (1 USD = 100 credits), rounded half up. */
export function microCreditsToMicroUsd(micro: number): number {
  return Math.round(Math.abs(micro) / CREDITS_PER_USD);
}

export function microUsdToUsd(microUsd: number): number {
  return microUsd / 1_000_000;
}

/** Ceil(a * b / c) on integers without floating-point error. */
export function mulDivCeil(a: number, b: number, c: number): number {
  const n = BigInt(a) * BigInt(b);
  const d = BigInt(c);
  return Number((n + d - 1n) / d);
}
