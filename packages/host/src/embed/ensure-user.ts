import { creditsToMicro, GatewayError, type GengateUseCases } from '@gengate/core';

export interface EnsureUserInput {
  /** The gengate user's e-mail (its identity in gengate: one user per address). */
  readonly email: string;
  /** Starting credits granted when the user is created now (a completed `grant`); default 0. */
  readonly credits?: number;
}

/**
 * The gengate user for an app's own user, created on first use (no API key: the app's sign-in acts as
 * it through the router's `authenticate` seam). Safe under concurrent calls for one address.
 */
export async function ensureGengateUser(gengate: Pick<GengateUseCases, 'stores' | 'ids' | 'unitOfWork'>, input: EnsureUserInput): Promise<{ userId: string; created: boolean }> {
  const { stores, ids, unitOfWork } = gengate;
  const existing = await stores.users.findByEmail(input.email);
  if (existing) return { userId: existing.id, created: false };
  const credits = input.credits ?? 0;
  if (!Number.isFinite(credits) || credits < 0) throw new GatewayError('invalid_request', 'credits must be a number >= 0.', { param: 'credits' });
  try {
    return await unitOfWork.run(async (tx) => {
      const user = await tx.users.insert({ id: ids.uuid(), email: input.email });
      await tx.ledger.openAccount(user.id);
      if (credits > 0) {
        await tx.ledger.record({ userId: user.id, creditsMicro: creditsToMicro(credits), amountMicroUsd: 0, paymentMethod: 'grant', status: 'completed', description: 'Starting credits' });
      }
      return { userId: user.id, created: true };
    });
  } catch (err) {
    // Another request created it at the same moment (unique e-mail): that one is the user.
    const raced = await stores.users.findByEmail(input.email);
    if (raced) return { userId: raced.id, created: false };
    throw err;
  }
}
