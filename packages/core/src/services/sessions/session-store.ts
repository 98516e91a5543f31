/** A signed-in dashboard session (the cookie's secret is never stored: only its SHA-256). */
export interface SessionRecord {
  readonly idHash: string;
  readonly userId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** An unused, unexpired sign-in link: its address, and the hash of the pre-sign-in cookie of the browser that asked for it. */
export interface SignInTokenRecord {
  readonly email: string;
  readonly browserHash: string | null;
}

/** Sign-in links and dashboard sessions. Secrets are stored only as SHA-256 hashes. */
export interface SessionStore {
  insertSignInToken(token: { tokenHash: string; email: string; expiresAt: Date; browserHash: string | null }): Promise<void>;
  /** The token when it is unused and unexpired at `now` (it stays usable). */
  findSignInToken(tokenHash: string, now: Date): Promise<SignInTokenRecord | null>;
  /**
   * Marks the token used when it is unused and unexpired, and returns its e-mail; null otherwise.
   * Exactly one of two concurrent calls with the same token succeeds.
   */
  consumeSignInToken(tokenHash: string, now: Date): Promise<{ email: string } | null>;
  /** Removes a token (its mail could not be sent). */
  deleteSignInToken(tokenHash: string): Promise<void>;
  /**
   * Takes one of the `max` links an address may be sent in a window (sends at `now`, counting those after
   * `windowStart`), or returns false when they are all taken. Exact under concurrency: of any number of
   * concurrent calls at most `max` succeed within a window. Independent of purgeExpired.
   */
  reserveSignInLink(email: string, now: Date, windowStart: Date, max: number): Promise<boolean>;
  /** Gives back the send reserved at `at` (its mail could not be sent). */
  releaseSignInLink(email: string, at: Date): Promise<void>;
  insertSession(session: { idHash: string; userId: string; expiresAt: Date }): Promise<SessionRecord>;
  /** The session when it exists and has not expired at `now`. */
  findSession(idHash: string, now: Date): Promise<SessionRecord | null>;
  deleteSession(idHash: string): Promise<boolean>;
  /**
   * Deletes expired sessions and sign-in tokens that expired before `now`, and the send counts of addresses
   * sent nothing after `windowStart`; returns how many sessions and tokens.
   */
  purgeExpired(now: Date, windowStart: Date): Promise<{ sessions: number; tokens: number }>;
}
