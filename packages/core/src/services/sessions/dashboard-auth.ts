import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Mailer } from '../../ports/mailer.js';
import type { Clock, IdGenerator, Logger } from '../../ports/system.js';
import type { UnitOfWork, UserStore } from '../../ports/stores.js';
import { creditsToMicro } from '../../util/money.js';
import type { AccountDirectory, UserRole } from '../operators/account-directory.js';
import type { SessionStore } from './session-store.js';
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
  /** Links sent to one address per hour, at most; further requests are answered the same but send nothing. */
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
const verifySchema = z.strictObject({ token: z.string().min(1).max(200) });

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
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DashboardAuthOptions,
  ) {}

  get openSignup(): boolean {
    return this.options.openSignup;
  }

  /**
   * Sends a sign-in link to an existing user (or, with open sign-up, to any address). The answer is the
   * same whether or not a mail was sent, so it tells nobody which addresses have accounts.
   */
  async requestLink(body: unknown): Promise<{ sent: true }> {
    const parsed = emailSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const email = parsed.data.email.trim();
    const now = this.clock.now();
    const user = await this.users.findByEmail(email);
    if (!user && !this.options.openSignup) {
      this.logger.info({ reason: 'no account, sign-up closed' }, 'sign-in link not sent');
      return { sent: true };
    }
    if ((await this.sessions.countSignInTokensSince(email.toLowerCase(), new Date(now.getTime() - 3_600_000))) >= this.options.maxLinksPerHour) {
      this.logger.warn({ reason: 'too many links for this address in the last hour' }, 'sign-in link not sent');
      return { sent: true };
    }
    const token = newSessionSecret();
    await this.sessions.insertSignInToken({
      tokenHash: hashSessionSecret(token),
      email: email.toLowerCase(),
      expiresAt: new Date(now.getTime() + this.options.linkTtlMs),
    });
    const minutes = Math.round(this.options.linkTtlMs / 60_000);
    await this.mailer.send({
      to: email,
      subject: user ? 'Your gengate sign-in link' : 'Finish signing up to gengate',
      text: [
        user ? 'Open this link to sign in to the gengate dashboard:' : 'Open this link to create your gengate account and sign in:',
        '',
        this.options.linkUrl(token),
        '',
        `The link works once, within ${minutes} minutes. If you did not ask for it, ignore this mail.`,
      ].join('\n'),
    });
    return { sent: true };
  }

  /** Uses a link's token: opens a session (creating the account under open sign-up) and returns its secret. */
  async verify(body: unknown): Promise<{ sessionSecret: string; user: SessionUser; created: boolean }> {
    const parsed = verifySchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const now = this.clock.now();
    const consumed = looksLikeSessionSecret(parsed.data.token) ? await this.sessions.consumeSignInToken(hashSessionSecret(parsed.data.token), now) : null;
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
    this.logger.info({ userId: user.id, created }, 'dashboard sign-in');
    return { sessionSecret, user: { userId: user.id, email: user.email, role, expiresAt: session.expiresAt }, created };
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

  purgeExpired(): Promise<{ sessions: number; tokens: number }> {
    return this.sessions.purgeExpired(this.clock.now());
  }
}
