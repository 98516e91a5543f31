import type { Mailer } from '../ports/mailer.js';
import type { OrganizationStore } from '../ports/organization-store.js';
import type { AlertStore, UserStore } from '../ports/stores.js';
import { microToCredits } from '../util/money.js';

/** The body of one balance alert mail (run by the mail job, outside any ledger transaction). */
export class SendAlertMail {
  constructor(
    private readonly alerts: AlertStore,
    private readonly users: UserStore,
    private readonly organizations: OrganizationStore,
    private readonly mailer: Mailer,
    /** Where the user tops up: the API's top-up endpoint as the host mounts it (an embedder's may be `/ai/billing/topup`). */
    private readonly topUpEndpoint: string = '/api/v1/billing/topup',
  ) {}

  /**
   * Who is told about an organization's balance: its owners (they top up, docs/organizations.md). A
   * personal organization's one owner is its user (same id: read without the organization store, as
   * before organizations existed).
   */
  private async recipients(organizationId: string): Promise<string[]> {
    const user = await this.users.findById(organizationId);
    if (user) return [user.email];
    const members = await this.organizations.listMembers(organizationId);
    return members.filter((m) => m.role === 'owner').map((m) => m.email);
  }

  /** False when the alert or every recipient no longer exists (nothing to send). */
  async execute(alertId: string, balanceMicro: number): Promise<boolean> {
    const alert = await this.alerts.findById(alertId);
    if (!alert) return false;
    const to = await this.recipients(alert.userId);
    if (to.length === 0) return false;
    const balance = microToCredits(balanceMicro);
    const threshold = microToCredits(alert.thresholdMicro);
    for (const address of to) {
      await this.mailer.send({
        to: address,
        subject: `gengate balance alert: ${balance} credits, below ${threshold}`,
        text:
          `Your gengate balance is ${balance} credits, below your alert threshold of ${threshold} credits.\n\n` +
          `Top up with POST ${this.topUpEndpoint}. You will not get this mail again for this alert until the balance ` +
          'has gone back to or above the threshold.\n',
      });
    }
    return true;
  }
}
