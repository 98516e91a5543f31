export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Sends e-mail (SMTP in the host). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
