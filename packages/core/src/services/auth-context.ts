import type { ApiKeyRecord } from '../model/api-key.js';

/** Who is calling: established by authentication, passed to every use case. */
export interface AuthContext {
  /**
   * The account that pays: the organization whose balance, keys and tasks the request acts on (a user's
   * personal organization has the user's id). For an API key, the key's organization; for the dashboard's
   * session, the organization it selected (docs/organizations.md).
   */
  readonly userId: string;
  /**
   * The person: the key's member, or the signed-in user. Absent = `userId` (the owner of a personal
   * organization; what an embedder's seam that knows no organizations returns).
   */
  readonly memberId?: string;
  /**
   * The API key the request was authenticated with; null when the host authenticated it another way
   * (the dashboard's session, or an embedder's own authentication seam).
   */
  readonly apiKeyId: string | null;
  /**
   * The key's record as authentication read it (possibly from the key cache): lets a submission refuse
   * what the key's allow-lists exclude before anything else. The intake re-checks against the stored key.
   */
  readonly key?: ApiKeyRecord;
}
