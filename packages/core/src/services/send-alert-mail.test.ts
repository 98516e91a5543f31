import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../memory/memory-unit-of-work.js';
import type { MailMessage } from '../ports/mailer.js';
import { SendAlertMail } from './send-alert-mail.js';

describe('SendAlertMail', () => {
  it('names the top-up endpoint where the host mounts the API (default /api/v1)', async () => {
    const { scope, organizations } = createMemoryStores();
    const user = await scope.users.insert({ id: '00000000-0000-4000-8000-000000000001', email: 'low@example.com' });
    await scope.alerts.insert({ id: '00000000-0000-4000-8000-000000000002', userId: user.id, thresholdMicro: 5_000_000, armed: false });
    const sent: MailMessage[] = [];
    const mailer = { send: async (m: MailMessage) => void sent.push(m) };

    expect(await new SendAlertMail(scope.alerts, scope.users, organizations, mailer, 'https://app.example.com/ai/billing/topup').execute('00000000-0000-4000-8000-000000000002', 1_000_000)).toBe(true);
    expect(sent[0]?.text).toContain('Top up with POST https://app.example.com/ai/billing/topup.');
    expect(sent[0]?.text).not.toContain('/api/v1');

    await new SendAlertMail(scope.alerts, scope.users, organizations, mailer).execute('00000000-0000-4000-8000-000000000002', 1_000_000);
    expect(sent[1]?.text).toContain('Top up with POST /api/v1/billing/topup.');
  });

  it("mails every owner of a team's organization (whose id is nobody's), not its admins or members", async () => {
    const { scope, organizations } = createMemoryStores();
    const id = (n: number) => `00000000-0000-4000-8000-00000000001${n}`;
    const [ann, ben, cat, dan] = await Promise.all(['ann', 'ben', 'cat', 'dan'].map((n, i) => scope.users.insert({ id: id(i), email: `${n}@example.com` })));
    const at = new Date();
    const org = await organizations.create({ id: id(9), name: 'Team', ownerUserId: ann!.id, at });
    const join = async (userId: string, role: 'owner' | 'admin' | 'member', n: number) => {
      const inv = id(5 + n);
      await organizations.createInvitation({ id: inv, organizationId: org.id, email: '', role, tokenHash: inv, invitedBy: ann!.id, createdAt: at,
        expiresAt: new Date(at.getTime() + 60_000), acceptedAt: null, acceptedBy: null, revokedAt: null });
      expect((await organizations.acceptInvitation(inv, userId, at)).outcome).toBe('accepted');
    };
    await join(ben!.id, 'owner', 0);
    await join(cat!.id, 'admin', 1);
    await join(dan!.id, 'member', 2);
    await scope.alerts.insert({ id: id(8), userId: org.id, thresholdMicro: 5_000_000, armed: false });
    const sent: MailMessage[] = [];
    const mailer = { send: async (m: MailMessage) => void sent.push(m) };
    expect(await new SendAlertMail(scope.alerts, scope.users, organizations, mailer).execute(id(8), 1_000_000)).toBe(true);
    expect(sent.map((m) => m.to).sort()).toEqual(['ann@example.com', 'ben@example.com']);
    expect(sent[0]?.subject).toBe('gengate balance alert: 1 credits, below 5');
  });
});
