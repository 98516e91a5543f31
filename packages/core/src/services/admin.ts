import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
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

/** A user made by AdminService.createUser (printed as JSON by `gengate users create`). */
export interface CreatedUser {
  readonly user_id: string;
  /** The first API key's secret, shown once. */
  readonly key: string;
  /** @deprecated The former name of `key` (same value), kept for one release: removed in 0.2. */
  readonly api_key: string;
}

/** Operator use cases (CLI): create a user with a first API key, grant credits, complete manual purchases. */
@injectable()
export class AdminService {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Ids) private readonly ids: IdGenerator,
  ) {}

  /**
   * Creates a user with a first API key. The key is `key`, the name POST /api-keys answers with; `api_key`
   * is the same value under its former name, kept for one release (0.1.x) and removed in 0.2.
   */
  async createUser(input: { email: string; credits?: number }): Promise<CreatedUser> {
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
      return { user_id: user.id, key: secret, api_key: secret };
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
