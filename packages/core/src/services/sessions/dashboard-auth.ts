import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Mailer } from '../../ports/mailer.js';
import type { Clock, IdGenerator, Logger } from '../../ports/system.js';
import type { UnitOfWork, UserStore } from '../../ports/stores.js';
import { creditsToMicro } from '../../util/money.js';
import type { AccountDirectory, UserRole } from '../operators/account-directory.js';
import type { SessionStore } from './session-store.js';
import type { SignInLinkQueue, SignInLinkRequest } from './sign-in-link-queue.js';
import { hashSessionSecret, looksLikeSessionSecret, newSessionSecret } from './session-secrets.js';

export interface DashboardAuthOptions {
  /** When true, an unknown address gets a sign-up link and an account once the link is used. Default false. */
  readonly openSignup: boolean;
  /** Credits a user created by open sign-up starts with. */
  readonly signupCredits: number;
  /** Lifetime of a sign-in link. */
  readonly linkTtlMs: number;
  /** Lifetime of a session from sign-in (not extended by use). */
  readonly sessionTtlMs: number;
  /** Links sent to one address per hour (a sliding hour), at most; further requests are answered the same but send nothing. */
  readonly maxLinksPerHour: number;
  /** The page a link opens, from the configured public URL (never from a request's Host header). */
  linkUrl(token: string): string;
}

export const DEFAULT_DASHBOARD_AUTH: Omit<DashboardAuthOptions, 'linkUrl'> = {
  openSignup: false,
  signupCredits: 0,
  linkTtlMs: 15 * 60_000,
  sessionTtlMs: 7 * 86_400_000,
  maxLinksPerHour: 5,
};

/** A signed-in user, as a session resolves to. */
export interface SessionUser {
  readonly userId: string;
  readonly email: string;
  readonly role: UserRole;
  readonly expiresAt: Date;
}

const emailSchema = z.strictObject({ email: z.email().max(254) });
const verifySchema = z.strictObject({ token: z.string().min(1).max(200), confirm: z.boolean().optional() });
const HOUR_MS = 3_600_000;

/** What using a link did: signed in, or nothing yet because the person must first confirm the account. */
export type VerifyResult =
  | { readonly signedIn: true; readonly sessionSecret: string; readonly user: SessionUser; readonly created: boolean }
  | {
      readonly signedIn: false;
      readonly confirm: {
        /** The address the link signs in as. */
        readonly email: string;
        /** Whether this browser is the one that asked for the link. */
        readonly requestedInThisBrowser: boolean;
        /** The account signed in here now (which the link would replace), or null. */
        readonly signedInAs: string | null;
      };
    };

const INVALID_LINK = 'This sign-in link is unknown, has expired or was already used: request a new one.';

/**
 * Sign-in by e-mail link and dashboard sessions. A link carries a one-time token (256 random bits) that
 * is stored only as a hash, expires after `linkTtlMs` and is consumed by its first use. Using it opens a
 * session whose secret (the cookie value) is likewise stored only as a hash.
 */
export class DashboardAuth {
  constructor(
    private readonly sessions: SessionStore,
    private readonly users: UserStore,
    private readonly directory: AccountDirectory,
    private readonly uow: UnitOfWork,
    private readonly mailer: Mailer,
    private readonly linkQueue: SignInLinkQueue,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DashboardAuthOptions,
  ) {}

  get openSignup(): boolean {
    return this.options.openSignup;
  }

  /** Lifetime of a sign-in link (and of the pre-sign-in cookie that binds it to a browser). */
  get linkTtlMs(): number {
    return this.options.linkTtlMs;
  }

  /**
   * Accepts a request for a sign-in link and queues its mail. The answer, and the work done before it, are
   * the same whether or not the address has an account: who gets a mail is decided by sendLink, after.
   * `browserSecret` is the asking browser's pre-sign-in cookie; the link is bound to it.
   */
  async requestLink(body: unknown, browserSecret: string): Promise<{ sent: true }> {
    const parsed = emailSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    await this.linkQueue.enqueue({ email: parsed.data.email.trim(), browserHash: hashSessionSecret(browserSecret) });
    return { sent: true };
  }

  /**
   * Mails a queued link request: to an existing user (or, with open sign-up, to any address), at most
   * `maxLinksPerHour` an hour per address. A failed send removes its link, gives its place in the hourly
   * count back, and throws (the queue retries).
   */
  async sendLink(request: SignInLinkRequest): Promise<'sent' | 'no_account' | 'limited'> {
    const email = request.email.trim();
    const address = email.toLowerCase();
    const user = await this.users.findByEmail(email);
    if (!user && !this.options.openSignup) {
      this.logger.info({ reason: 'no account, sign-up closed' }, 'sign-in link not sent');
      return 'no_account';
    }
    const now = this.clock.now();
    if (!(await this.sessions.reserveSignInLink(address, now, new Date(now.getTime() - HOUR_MS), this.options.maxLinksPerHour))) {
      this.logger.warn({ reason: 'too many links for this address in the last hour' }, 'sign-in link not sent');
      return 'limited';
    }
    const token = newSessionSecret();
    const tokenHash = hashSessionSecret(token);
    await this.sessions.insertSignInToken({ tokenHash, email: address, expiresAt: new Date(now.getTime() + this.options.linkTtlMs), browserHash: request.browserHash });
    const minutes = Math.round(this.options.linkTtlMs / 60_000);
    try {
      await this.mailer.send({
        to: email,
        subject: user ? 'Your gengate sign-in link' : 'Finish signing up to gengate',
        text: [
          user ? 'Open this link to sign in to the gengate dashboard:' : 'Open this link to create your gengate account and sign in:',
          '',
          this.options.linkUrl(token),
          '',
          `The link works once, within ${minutes} minutes. Opened in the browser where you asked for it, it signs you in at once;`,
          'anywhere else, the page first asks you to confirm the account. If you did not ask for it, ignore this mail.',
        ].join('\n'),
      });
    } catch (err) {
      await this.sessions.deleteSignInToken(tokenHash);
      await this.sessions.releaseSignInLink(address, now);
      throw err;
    }
    return 'sent';
  }

  /**
   * Uses a link's token. It signs in at once only when the link was asked for in this browser (its
   * pre-sign-in cookie matches) and no other account is signed in here; otherwise nothing changes and the
   * answer says which account the link is for, until the request is repeated with `confirm: true`. So a
   * link another site sends a browser to can never silently replace its session (login CSRF).
   */
  async verify(body: unknown, browser: { browserSecret: string | null; sessionSecret: string | null }): Promise<VerifyResult> {
    const parsed = verifySchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const now = this.clock.now();
    const tokenHash = looksLikeSessionSecret(parsed.data.token) ? hashSessionSecret(parsed.data.token) : null;
    const link = tokenHash ? await this.sessions.findSignInToken(tokenHash, now) : null;
    if (!tokenHash || !link) throw new GatewayError('sign_in_link_invalid', INVALID_LINK, { param: 'token' });
    if (parsed.data.confirm !== true) {
      const requestedInThisBrowser = link.browserHash !== null && browser.browserSecret !== null && looksLikeSessionSecret(browser.browserSecret) && hashSessionSecret(browser.browserSecret) === link.browserHash;
      const current = await this.resolve(browser.sessionSecret);
      const otherAccount = current !== null && current.email.toLowerCase() !== link.email;
      if (!requestedInThisBrowser || otherAccount) {
        return { signedIn: false, confirm: { email: link.email, requestedInThisBrowser, signedInAs: current?.email ?? null } };
      }
    }
    const consumed = await this.sessions.consumeSignInToken(tokenHash, now);
    if (!consumed) throw new GatewayError('sign_in_link_invalid', INVALID_LINK, { param: 'token' });
    let user = await this.users.findByEmail(consumed.email);
    let created = false;
    if (!user) {
      if (!this.options.openSignup) throw new GatewayError('sign_up_closed', 'Open sign-up is off on this gateway: ask an operator to create your account.');
      user = await this.createAccount(consumed.email);
      created = true;
    }
    const role = (await this.directory.roleOf(user.id)) ?? 'user';
    const sessionSecret = newSessionSecret();
    const session = await this.sessions.insertSession({
      idHash: hashSessionSecret(sessionSecret),
      userId: user.id,
      expiresAt: new Date(now.getTime() + this.options.sessionTtlMs),
    });
    this.logger.info({ userId: user.id, created, confirmed: parsed.data.confirm === true }, 'dashboard sign-in');
    return { signedIn: true, sessionSecret, user: { userId: user.id, email: user.email, role, expiresAt: session.expiresAt }, created };
  }

  private async createAccount(email: string) {
    const credits = this.options.signupCredits;
    try {
      return await this.uow.run(async (tx) => {
        const user = await tx.users.insert({ id: this.ids.uuid(), email });
        await tx.ledger.openAccount(user.id);
        if (credits > 0) {
          await tx.ledger.record({
            userId: user.id,
            creditsMicro: creditsToMicro(credits),
            amountMicroUsd: 0,
            paymentMethod: 'grant',
            status: 'completed',
            description: 'Sign-up credits',
          });
        }
        return user;
      });
    } catch (err) {
      // Two links for the same new address used at once: the second finds the account the first made.
      const existing = await this.users.findByEmail(email);
      if (existing) return existing;
      throw err;
    }
  }

  /** The signed-in user of a session secret, or null when it is unknown, expired, or its user is gone. */
  async resolve(sessionSecret: string | null | undefined): Promise<SessionUser | null> {
    if (!sessionSecret || !looksLikeSessionSecret(sessionSecret)) return null;
    const session = await this.sessions.findSession(hashSessionSecret(sessionSecret), this.clock.now());
    if (!session) return null;
    const [user, role] = await Promise.all([this.users.findById(session.userId), this.directory.roleOf(session.userId)]);
    if (!user || !role) return null;
    return { userId: user.id, email: user.email, role, expiresAt: session.expiresAt };
  }

  async signOut(sessionSecret: string | null | undefined): Promise<void> {
    if (sessionSecret && looksLikeSessionSecret(sessionSecret)) await this.sessions.deleteSession(hashSessionSecret(sessionSecret));
  }

  /** Expired sessions and links; the hourly link counts are kept for the hour they cover (a purge never resets them). */
  purgeExpired(): Promise<{ sessions: number; tokens: number }> {
    const now = this.clock.now();
    return this.sessions.purgeExpired(now, new Date(now.getTime() - HOUR_MS));
  }
}
