import { GatewayError } from '../errors/gateway-error.js';
import type { MemberRole } from '../model/organization.js';

/** An invitation to mail: the link's token is only here and in the mail, never stored. */
export interface InvitationMail {
  readonly to: string;
  readonly organizationName: string;
  /** The inviting member's e-mail address. */
  readonly invitedBy: string;
  readonly role: MemberRole;
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * Sends an invitation's e-mail with its link (`<public origin>/dashboard/#/invitations/<token>`). The host
 * builds it from its Mailer and public URL (`invitationMailer`); a failed send throws (the invitation is
 * then revoked and the caller told).
 */
export interface InvitationMailer {
  send(mail: InvitationMail): Promise<void>;
}

/** The default without a mailer: inviting answers 503 and creates nothing. */
export const NO_INVITATION_MAILER: InvitationMailer = {
  send: () =>
    Promise.reject(new GatewayError('service_unavailable', 'Invitations cannot be sent: no mailer is configured (give createGengate an `invitationMailer`).')),
};
