import type { TransactionScope } from '../ports/stores.js';

/**
 * Call after any ledger change, inside the same transaction (the account row is then locked, so
 * concurrent changes see each other's arming). An armed alert whose threshold the balance has dropped
 * below is disarmed and ONE mail job is enqueued; a disarmed alert re-arms when the balance is back at
 * or above its threshold.
 */
export async function checkBalanceAlerts(tx: TransactionScope, userId: string): Promise<void> {
  // A store that keeps the rule itself (PostgreSQL) applies it: one home for it per store.
  if (tx.alerts.checkBalance) return tx.alerts.checkBalance(userId);
  const alerts = await tx.alerts.listForUser(userId);
  if (alerts.length === 0) return;
  const { balanceMicro } = await tx.ledger.getBalance(userId);
  for (const alert of alerts) {
    if (alert.armed && balanceMicro < alert.thresholdMicro) {
      await tx.alerts.setArmed(alert.id, false);
      await tx.jobs.enqueueAlertMail(alert.id, balanceMicro);
    } else if (!alert.armed && balanceMicro >= alert.thresholdMicro) {
      await tx.alerts.setArmed(alert.id, true);
    }
  }
}
