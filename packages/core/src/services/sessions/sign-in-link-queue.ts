/** A request for a sign-in link, as it waits to be mailed: the address and the asking browser's pre-sign-in cookie hash. */
export interface SignInLinkRequest {
  readonly email: string;
  readonly browserHash: string;
}

/**
 * Where POST /auth/link puts a request: the mail is sent after the answer, so the answer (and its timing)
 * is the same whether or not the address has an account. The host's is a pg-boss queue.
 */
export interface SignInLinkQueue {
  enqueue(request: SignInLinkRequest): Promise<void>;
}
