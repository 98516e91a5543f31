import type { Mailer } from '@gengate/core';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

/**
 * SMTP through nodemailer when smtpUrl is set (smtp:// or smtps://, credentials in the URL);
 * otherwise mails are written to the log, and start-up says so.
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
  const transport = nodemailer.createTransport(opts.smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
