import { budgetResetsAt } from '../keys/key-budget-period.js';
import { keyControlsOf } from '../model/api-key.js';
import type { Mailer } from '../ports/mailer.js';
import type { KeyBudgetMail, KeyStore, UserStore } from '../ports/stores.js';
import { microToCredits } from '../util/money.js';

/**
 * The body of a key's soft-threshold mail (run by the mail job, outside the submission's transaction;
 * enqueued once per key and period by the submission whose hold reached the threshold).
 */
export class SendKeyBudgetMail {
  constructor(
    private readonly keys: KeyStore,
    private readonly users: UserStore,
    private readonly mailer: Mailer,
  ) {}

  /**
   * False when the key was revoked or its member no longer exists (nothing to send). The mail goes to the
   * key's member (the person who owns it; absent = the organization's id, a personal organization's owner):
   * in a team's organization the id in `m.userId` is the organization's, which is nobody's address.
   */
  async execute(m: KeyBudgetMail): Promise<boolean> {
    const key = await this.keys.findActiveForUser(m.keyId, m.userId);
    if (!key) return false;
    const user = await this.users.findById(key.memberId ?? key.userId);
    if (!user) return false;
    const spent = microToCredits(m.spentMicro);
    const limit = microToCredits(m.limitMicro);
    const percent = Math.floor((m.spentMicro * 100) / m.limitMicro);
    const controls = keyControlsOf(key);
    const resets = budgetResetsAt(controls.budgetPeriod, new Date(m.periodStart));
    await this.mailer.send({
      to: user.email,
      subject: `gengate key budget: '${key.name}' has used ${percent}% of its ${limit} credits`,
      text:
        `Your API key '${key.name}' (${key.mask}) has spent ${spent} of its ${limit} credit spend limit ` +
        `(${percent}%, at or above its soft threshold of ${controls.softThresholdPercent ?? '?'}%) in the period that started ${m.periodStart}.\n\n` +
        (resets ? `The budget starts again at ${resets.toISOString()}. ` : 'This budget does not reset (budget_period none). ') +
        'Submissions that would go past the limit are refused with key_budget_exceeded; raise spend_limit with PUT /api/v1/api-keys/{id}. ' +
        'You will not get this mail again for this key until the next period.\n',
    });
    return true;
  }
}
