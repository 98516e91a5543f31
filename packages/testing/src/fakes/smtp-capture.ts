import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly raw: string;
  /** The raw message with quoted-printable soft line breaks removed, for text assertions. */
  readonly unfolded: string;
}

export interface SmtpCapture {
  readonly url: string;
  readonly mails: readonly CapturedMail[];
  /** Resolves when at least `count` mails have arrived (or rejects after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<readonly CapturedMail[]>;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on 127.0.0.1 that keeps every message it receives. */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          unfolded: raw.replace(/=\r?\n/g, ''),
        });
        for (const w of waiters.filter((x) => mails.length >= x.count)) w.resolve();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(count, timeoutMs = 15_000) {
      if (mails.length >= count) return Promise.resolve(mails);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} mails, got ${mails.length} after ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(mails);
          },
        });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
