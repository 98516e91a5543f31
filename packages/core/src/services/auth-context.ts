/** Who is calling: established by authentication, passed to every use case. */
export interface AuthContext {
  readonly userId: string;
  readonly apiKeyId: string;
}
