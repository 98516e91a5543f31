import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import type { IdGenerator } from '../ports/system.js';
import type { UnitOfWork } from '../ports/stores.js';
import { creditsToMicro } from '../util/money.js';
import { checkBalanceAlerts } from '../billing/alert-check.js';
import { completePendingPurchase } from '../billing/complete-purchase.js';
import { issueApiKey } from './manage-keys.js';

const createUserSchema = z.strictObject({
  email: z.email(),
  credits: z.number().min(0).max(1_000_000_000).default(0),
});

/** Operator use cases (CLI): create a user with a first API key, grant credits, complete manual purchases. */
export class AdminService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly ids: IdGenerator,
  ) {}

  async createUser(input: { email: string; credits?: number }): Promise<{ user_id: string; api_key: string }> {
    const parsed = createUserSchema.safeParse(input);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const { email, credits } = parsed.data;
    return this.uow.run(async (tx) => {
      if (await tx.users.findByEmail(email)) throw new GatewayError('conflict', `A user with e-mail ${email} already exists.`, { param: 'email' });
      const user = await tx.users.insert({ id: this.ids.uuid(), email });
      await tx.ledger.openAccount(user.id);
      if (credits > 0) {
        await tx.ledger.record({
          userId: user.id,
          creditsMicro: creditsToMicro(credits),
          amountMicroUsd: 0,
          paymentMethod: 'grant',
          status: 'completed',
          description: 'Starting credits',
        });
      }
      const { secret } = await issueApiKey(tx.keys, this.ids, user.id, {
        name: 'default',
        limits: { perMinute: null, perHour: null, perDay: null },
        ipWhitelist: [],
      });
      return { user_id: user.id, api_key: secret };
    });
  }

  async grantCredits(userId: string, credits: number, description = 'Operator grant'): Promise<{ transaction_id: string; credits: number }> {
    if (!Number.isFinite(credits) || credits <= 0) throw new GatewayError('invalid_request', 'credits must be a positive number.', { param: 'credits' });
    return this.uow.run(async (tx) => {
      if (!(await tx.users.findById(userId))) throw new GatewayError('invalid_request', `No user with id ${userId}.`, { param: 'user_id' });
      const t = await tx.ledger.record({
        userId,
        creditsMicro: creditsToMicro(credits),
        amountMicroUsd: 0,
        paymentMethod: 'grant',
        status: 'completed',
        description,
      });
      await checkBalanceAlerts(tx, userId);
      return { transaction_id: t.id, credits };
    });
  }

  /** Completes a pending `manual` purchase; exactly once (a second call is a 409 conflict). */
  async completePurchase(transactionId: string): Promise<{ transaction_id: string; status: 'completed' }> {
    const outcome = await completePendingPurchase(this.uow, transactionId, { paymentMethod: 'manual' });
    if (outcome !== 'completed') throw new GatewayError('conflict', `Transaction ${transactionId} is not a pending manual purchase.`, { param: 'transaction_id' });
    return { transaction_id: transactionId, status: 'completed' };
  }
}
