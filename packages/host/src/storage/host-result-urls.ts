import { TOKENS, type Clock, type ResultUrlResolver } from '@gengate/core';
import { inject, injectable } from 'inversify';
import { HOST_TOKENS, type FileUrlSettings } from '../host-tokens.js';
import type { Queryable } from '../postgres/queryable.js';
import { loadServerSecret } from '../postgres/server-secrets.js';
import { createResultUrlResolver, createResultUrlVerifier, type ResultUrlCheck, type ResultUrlVerifier } from './result-urls.js';

/**
 * The host's result URLs: signed (fileAccess `signed`) with a secret kept in the database, so that every
 * process agrees, once `load()` has read it (the host's start()); plain before, and then refused (403).
 * Expiry reads the container's clock (rebind TOKENS.Clock to move it).
 */
@injectable()
export class HostResultUrls implements ResultUrlResolver, ResultUrlVerifier {
  private readonly plain: ResultUrlResolver;
  private signing: { readonly resolver: ResultUrlResolver; readonly verifier: ResultUrlVerifier } | null = null;

  constructor(
    @inject(HOST_TOKENS.Pool) private readonly db: Queryable,
    @inject(HOST_TOKENS.Schema) private readonly schema: string,
    @inject(HOST_TOKENS.FileUrls) private readonly settings: FileUrlSettings,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {
    this.plain = createResultUrlResolver(settings.publicUrl, null, settings.mountPath);
  }

  /** Milliseconds since the epoch, by the container's clock. */
  now(): number {
    return this.clock.now().getTime();
  }

  /** Reads the signing secret (a no-op unless URLs are signed). */
  async load(): Promise<void> {
    if (!this.settings.signed) return;
    const signing = { secret: await loadServerSecret(this.db, this.schema, 'result-urls'), ttlSeconds: this.settings.ttlSeconds, now: () => this.now() };
    this.signing = { resolver: createResultUrlResolver(this.settings.publicUrl, signing, this.settings.mountPath), verifier: createResultUrlVerifier(signing) };
  }

  urlFor(key: string): string {
    return (this.signing?.resolver ?? this.plain).urlFor(key);
  }

  verify(key: string, query: { expires?: unknown; signature?: unknown }): ResultUrlCheck {
    return this.signing?.verifier.verify(key, query) ?? { ok: false, reason: 'invalid' };
  }
}
