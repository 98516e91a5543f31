import type { ApiKeyRecord } from '../model/api-key.js';

/** Who is calling: established by authentication, passed to every use case. */
export interface AuthContext {
  readonly userId: string;
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
