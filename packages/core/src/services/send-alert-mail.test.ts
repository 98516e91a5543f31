import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../memory/memory-unit-of-work.js';
import type { MailMessage } from '../ports/mailer.js';
import { SendAlertMail } from './send-alert-mail.js';

describe('SendAlertMail', () => {
  it('names the top-up endpoint where the host mounts the API (default /api/v1)', async () => {
    const { scope } = createMemoryStores();
    const user = await scope.users.insert({ id: '00000000-0000-4000-8000-000000000001', email: 'low@example.com' });
    await scope.alerts.insert({ id: '00000000-0000-4000-8000-000000000002', userId: user.id, thresholdMicro: 5_000_000, armed: false });
    const sent: MailMessage[] = [];
    const mailer = { send: async (m: MailMessage) => void sent.push(m) };

    expect(await new SendAlertMail(scope.alerts, scope.users, mailer, 'https://app.example.com/ai/billing/topup').execute('00000000-0000-4000-8000-000000000002', 1_000_000)).toBe(true);
    expect(sent[0]?.text).toContain('Top up with POST https://app.example.com/ai/billing/topup.');
    expect(sent[0]?.text).not.toContain('/api/v1');

    await new SendAlertMail(scope.alerts, scope.users, mailer).execute('00000000-0000-4000-8000-000000000002', 1_000_000);
    expect(sent[1]?.text).toContain('Top up with POST /api/v1/billing/topup.');
  });
});
