import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { BalanceAlertRecord, BalanceAlertView, BalanceView, TransactionRecord, TransactionView } from '../model/billing.js';
import { CREDITS_PER_USD } from '../model/pricing.js';
import { createAlertSchema, topupSchema } from '../billing/billing-schemas.js';
import { completePendingPurchase, type PaidPurchase, type PurchaseOutcome } from '../billing/complete-purchase.js';
import type { PaymentProcessor } from '../ports/payment-processor.js';
import type { IdGenerator } from '../ports/system.js';
import type { AlertStore, BillingLedger, UnitOfWork } from '../ports/stores.js';
import { creditsToMicro, microToCredits, microUsdToUsd } from '../util/money.js';
import { isUuid } from '../util/uuid.js';
import type { AuthContext } from './auth-context.js';
import { CallerRoles, MANAGER_ROLES } from './caller-roles.js';
import { NO_ORGANIZATION_STORE } from '../ports/no-organization-store.js';
import { pageQuerySchema } from './pagination.js';

export function toTransactionView(t: TransactionRecord): TransactionView {
  return {
    id: t.id,
    credits: microToCredits(t.creditsMicro),
    amount: microUsdToUsd(t.amountMicroUsd),
    payment_method: t.paymentMethod,
    status: t.status,
    created_at: t.createdAt.toISOString(),
    task_id: t.taskId,
    description: t.description,
  };
}

function toAlertView(a: BalanceAlertRecord): BalanceAlertView {
  return { id: a.id, threshold: microToCredits(a.thresholdMicro), armed: a.armed, created_at: a.createdAt.toISOString() };
}

export interface TopupStarted {
  transaction_id: string;
  status: 'pending';
  amount: number;
  credits: number;
  currency: 'USD';
  payment_method: PaymentProcessor['id'];
  checkout_url: string | null;
}

const OWNER: readonly ['owner'] = ['owner'];

/**
 * Balance, transactions, top-ups and balance alerts of the caller's organization. Role gates
 * (docs/organizations.md): the balance, every role; transactions and the alerts' list, owner or admin;
 * top-ups and alert changes, owner. A refusal (403 insufficient_role) comes before anything is read or written.
 */
@injectable()
export class BillingService {
  constructor(
    @inject(TOKENS.Ledger) private readonly ledger: BillingLedger,
    @inject(TOKENS.AlertStore) private readonly alerts: AlertStore,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.PaymentProcessor) private readonly processor: PaymentProcessor,
    @inject(TOKENS.Ids) private readonly ids: IdGenerator,
    @inject(CallerRoles) private readonly roles: CallerRoles = new CallerRoles(NO_ORGANIZATION_STORE),
  ) {}

  async balance(auth: AuthContext): Promise<BalanceView> {
    const b = await this.ledger.getBalance(auth.userId);
    return {
      credits: microToCredits(b.balanceMicro),
      currency: 'USD',
      held_credits: microToCredits(b.heldMicro),
      available_credits: microToCredits(b.balanceMicro - b.heldMicro),
    };
  }

  async transactions(auth: AuthContext, rawQuery: unknown): Promise<{ data: TransactionView[]; total: number; page: number; per_page: number }> {
    await this.roles.require(auth, MANAGER_ROLES);
    const parsed = pageQuerySchema.safeParse(rawQuery);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const { page, per_page } = parsed.data;
    const result = await this.ledger.listTransactions(auth.userId, page, per_page);
    return { data: result.items.map(toTransactionView), total: result.total, page, per_page };
  }

  async topup(auth: AuthContext, body: unknown): Promise<TopupStarted> {
    await this.roles.require(auth, OWNER);
    const parsed = topupSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const amountCents = Math.round(parsed.data.amount * 100);
    const credits = (amountCents * CREDITS_PER_USD) / 100;
    const tx = await this.ledger.record({
      userId: auth.userId,
      creditsMicro: creditsToMicro(credits),
      amountMicroUsd: amountCents * 10_000,
      paymentMethod: this.processor.id,
      status: 'pending',
      description: `Top-up of ${(amountCents / 100).toFixed(2)} USD`,
    });
    let checkout: { checkoutUrl: string | null };
    try {
      checkout = await this.processor.createCheckout({ transactionId: tx.id, userId: auth.userId, amountCents, credits });
    } catch (err) {
      // No checkout exists, so nobody can pay this top-up: it must not stay pending (it counts against the cap).
      await this.ledger.fail(tx.id);
      throw new GatewayError('upstream_error', `The payment processor could not start the checkout; nothing was charged, try again later.`, { cause: err });
    }
    return {
      transaction_id: tx.id,
      status: 'pending',
      amount: amountCents / 100,
      credits,
      currency: 'USD',
      payment_method: this.processor.id,
      checkout_url: checkout.checkoutUrl,
    };
  }

  /** Completes a paid purchase reported by the payment processor (webhook); idempotent. */
  completePurchase(transactionId: string, paid: PaidPurchase): Promise<PurchaseOutcome> {
    return completePendingPurchase(this.uow, transactionId, paid);
  }

  async listAlerts(auth: AuthContext): Promise<{ data: BalanceAlertView[] }> {
    await this.roles.require(auth, MANAGER_ROLES);
    return { data: (await this.alerts.listForUser(auth.userId)).map(toAlertView) };
  }

  async createAlert(auth: AuthContext, body: unknown): Promise<BalanceAlertView> {
    await this.roles.require(auth, OWNER);
    const parsed = createAlertSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const thresholdMicro = creditsToMicro(parsed.data.threshold);
    // The store refuses an alert beyond MAX_ALERTS_PER_USER (limit_exceeded), atomically with the insert.
    const alert = await this.uow.run(async (tx) => {
      const balance = await tx.ledger.getBalance(auth.userId);
      return tx.alerts.insert({ id: this.ids.uuid(), userId: auth.userId, thresholdMicro, armed: balance.balanceMicro >= thresholdMicro });
    });
    return toAlertView(alert);
  }

  async deleteAlert(auth: AuthContext, id: string): Promise<{ id: string; deleted: true }> {
    await this.roles.require(auth, OWNER);
    if (!isUuid(id) || !(await this.alerts.delete(id.toLowerCase(), auth.userId))) {
      throw new GatewayError('alert_not_found', `No balance alert with id '${id}'.`, { param: 'id' });
    }
    return { id, deleted: true };
  }
}
