import type { Mailer } from '@gengate/core';
import type { Logger } from 'pino';
import { importOptional } from '../optional-dependency.js';

/**
 * SMTP through nodemailer when smtpUrl is set (smtp:// or smtps://, credentials in the URL);
 * otherwise mails are written to the log, and start-up says so. nodemailer is imported on the first
 * mail sent, so a host without SMTP never loads it (it is an optional peer dependency: without it, sending
 * rejects with an OptionalDependencyMissing naming it).
 */
export function createMailer(opts: { smtpUrl: string | null; from: string; logger: Logger }): Mailer {
  if (!opts.smtpUrl) {
    opts.logger.warn('SMTP_URL is not set: mails (balance alerts, dashboard sign-in links) are written to the log instead of being sent');
    return {
      async send(message) {
        opts.logger.info({ mail: { to: message.to, subject: message.subject, text: message.text } }, 'mail (not sent: no SMTP_URL)');
      },
    };
  }
  const smtpUrl = opts.smtpUrl;
  let transport: Promise<{ sendMail(mail: { from: string; to: string; subject: string; text: string }): Promise<unknown> }> | null = null;
  return {
    async send(message) {
      transport ??= importOptional('nodemailer', () => import('nodemailer')).then((m) => m.default.createTransport(smtpUrl));
      await (await transport).sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
