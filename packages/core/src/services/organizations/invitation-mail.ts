import type { InvitationMailer } from '../../ports/invitation-mailer.js';
import type { Mailer } from '../../ports/mailer.js';

/** The dashboard page an invitation's link opens: the token in the URL fragment, which browsers never send to a server. */
export function invitationLinkUrl(publicOrigin: string, token: string): string {
  return `${publicOrigin.replace(/\/+$/, '')}/dashboard/#/invitations/${token}`;
}

/**
 * An InvitationMailer over a Mailer, sent at once like a sign-in link. `publicOrigin` is read per mail
 * (the configured public URL, never a request's Host header).
 */
export function invitationMailer(mailer: Mailer, publicOrigin: () => string): InvitationMailer {
  return {
    send: (m) => {
      const days = Math.max(1, Math.round((m.expiresAt.getTime() - Date.now()) / 86_400_000));
      return mailer.send({
        to: m.to,
        subject: `You are invited to join ${m.organizationName} on gengate`,
        text: [
          `${m.invitedBy || 'A member'} invites you to join the organization "${m.organizationName}" on gengate as ${m.role === 'admin' ? 'an admin' : `a ${m.role}`}.`,
          '',
          'Open this link, signed in as this address, to accept:',
          '',
          invitationLinkUrl(publicOrigin(), m.token),
          '',
          `The link works once, within ${days} days (until ${m.expiresAt.toISOString()}). If you do not know this organization, ignore this mail.`,
        ].join('\n'),
      });
    },
  };
}
