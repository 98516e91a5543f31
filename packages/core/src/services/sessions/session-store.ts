/** A signed-in dashboard session (the cookie's secret is never stored: only its SHA-256). */
export interface SessionRecord {
  readonly idHash: string;
  readonly userId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** Sign-in links and dashboard sessions. Secrets are stored only as SHA-256 hashes. */
export interface SessionStore {
  insertSignInToken(token: { tokenHash: string; email: string; expiresAt: Date }): Promise<void>;
  /** Links sent to this address since `since` (limits how many a stranger can make us send). */
  countSignInTokensSince(email: string, since: Date): Promise<number>;
  /**
   * Marks the token used when it is unused and unexpired, and returns its e-mail; null otherwise.
   * Exactly one of two concurrent calls with the same token succeeds.
   */
  consumeSignInToken(tokenHash: string, now: Date): Promise<{ email: string } | null>;
  insertSession(session: { idHash: string; userId: string; expiresAt: Date }): Promise<SessionRecord>;
  /** The session when it exists and has not expired at `now`. */
  findSession(idHash: string, now: Date): Promise<SessionRecord | null>;
  deleteSession(idHash: string): Promise<boolean>;
  /** Deletes expired sessions and sign-in tokens that expired before `now`; returns how many of each. */
  purgeExpired(now: Date): Promise<{ sessions: number; tokens: number }>;
}
