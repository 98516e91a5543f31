import { randomUUID } from 'node:crypto';
import { capExceeded, USER_CAPS } from '../errors/caps.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { TransactionRecord } from '../model/billing.js';
import type { AccountBalance, BillingLedger, CreditEntry, Page } from '../ports/stores.js';
import { microCreditsToMicroUsd } from '../util/money.js';
import type { MemoryDatabase } from './memory-database.js';

export class MemoryBillingLedger implements BillingLedger {
  constructor(private readonly db: MemoryDatabase) {}
  async openAccount(userId: string) {
    this.db.accounts.add(userId);
  }
  async getBalance(userId: string): Promise<AccountBalance> {
    const balanceMicro = this.db.transactions
      .filter((t) => t.userId === userId && t.status === 'completed')
      .reduce((s, t) => s + t.creditsMicro, 0);
    const heldMicro = [...this.db.holds.values()]
      .filter((h) => h.userId === userId && h.state === 'held')
      .reduce((s, h) => s + h.amountMicro, 0);
    return { balanceMicro, heldMicro };
  }
  async lockAccount(): Promise<void> {
    // Memory units of work are serialized: nothing else runs meanwhile.
  }
  async hold(userId: string, taskId: string, amountMicro: number) {
    const b = await this.getBalance(userId);
    if (b.balanceMicro - b.heldMicro < amountMicro) {
      throw new GatewayError('insufficient_credits', 'The available balance cannot cover the price of this run; top up with POST /api/v1/billing/topup.');
    }
    this.db.holds.set(taskId, { userId, taskId, amountMicro, state: 'held' });
  }
  async settle(taskId: string, chargeMicro: number, description: string) {
    const h = this.db.holds.get(taskId);
    if (!h || h.state !== 'held') return null;
    this.db.holds.set(taskId, { ...h, state: 'settled' });
    const credits = Math.min(chargeMicro, h.amountMicro);
    const t = this.push({
      userId: h.userId,
      creditsMicro: -credits,
      amountMicroUsd: microCreditsToMicroUsd(credits),
      paymentMethod: 'usage',
      status: 'completed',
      description,
    }, taskId);
    return t;
  }
  async release(taskId: string) {
    const h = this.db.holds.get(taskId);
    if (h && h.state === 'held') this.db.holds.set(taskId, { ...h, state: 'released' });
  }
  async record(e: CreditEntry) {
    if (e.status === 'pending' && e.paymentMethod !== 'usage') {
      const pending = this.db.transactions.filter((t) => t.userId === e.userId && t.status === 'pending' && t.paymentMethod !== 'usage').length;
      if (pending >= USER_CAPS.pending_topups) throw capExceeded('pending_topups');
    }
    return this.push(e, null);
  }
  async complete(id: string) {
    return this.transition(id, ['pending', 'failed'], 'completed');
  }
  async fail(id: string) {
    return this.transition(id, ['pending'], 'failed');
  }
  private transition(id: string, from: readonly TransactionRecord['status'][], to: TransactionRecord['status']): TransactionRecord | null {
    const i = this.db.transactions.findIndex((t) => t.id === id && from.includes(t.status) && t.paymentMethod !== 'usage');
    const t = this.db.transactions[i];
    if (!t) return null;
    const done: TransactionRecord = { ...t, status: to };
    this.db.transactions[i] = done;
    return done;
  }
  async findTransaction(id: string) {
    return this.db.transactions.find((t) => t.id === id) ?? null;
  }
  async listTransactions(userId: string, page: number, perPage: number): Promise<Page<TransactionRecord>> {
    const all = this.db.transactions.filter((t) => t.userId === userId).reverse();
    return { items: all.slice((page - 1) * perPage, page * perPage), total: all.length };
  }
  private push(e: CreditEntry, taskId: string | null): TransactionRecord {
    const t: TransactionRecord = {
      id: randomUUID(),
      userId: e.userId,
      creditsMicro: e.creditsMicro,
      amountMicroUsd: e.amountMicroUsd,
      paymentMethod: e.paymentMethod,
      status: e.status,
      taskId,
      description: e.description,
      createdAt: new Date(),
    };
    this.db.transactions.push(t);
    return t;
  }
}
