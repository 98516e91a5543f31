/** Who is calling: established by authentication, passed to every use case. */
export interface AuthContext {
  readonly userId: string;
  /**
   * The API key the request was authenticated with; null when the host authenticated it another way
   * (the dashboard's session, or an embedder's own authentication seam).
   */
  readonly apiKeyId: string | null;
}
