import { UpstreamError } from '@gengate/core';
import { guardedLookup, isForbiddenHost } from '@gengate/core/internal';
import { Agent, fetch as undiciFetch } from 'undici';

export interface GuardedFetchOptions {
  /** Development only: allow loopback and private targets. */
  readonly allowPrivate: boolean;
  /** Origins exempt from the guard: the providers' own configured base URLs (fakes on loopback in tests). */
  readonly trustedOrigins: () => ReadonlySet<string>;
  readonly maxRedirects?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A fetch for URLs the gateway did not choose (upstream result URLs, users' reference inputs): it refuses
 * loopback, private, link-local (cloud metadata) and reserved addresses at connect time (undici with a
 * guarded DNS lookup, so DNS rebinding cannot slip past), refuses literal private IPs up front, and checks
 * every redirect hop the same way. The providers' own origins are trusted.
 */
export function createGuardedFetch(opts: GuardedFetchOptions): typeof fetch {
  const guarded = new Agent({ connect: { lookup: guardedLookup(opts.allowPrivate) } });
  const plain = new Agent();
  const maxRedirects = opts.maxRedirects ?? 5;

  const one = (url: URL, init: RequestInit) => {
    const trusted = opts.trustedOrigins().has(url.origin);
    if (!trusted && !opts.allowPrivate) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UpstreamError(`refusing to fetch a ${url.protocol} URL`, { kind: 'bad_output' });
      if (isForbiddenHost(url.hostname)) {
        throw new UpstreamError(`refusing to fetch ${url.origin}: a private or loopback address`, { kind: 'bad_output' });
      }
    }
    return undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), redirect: 'manual', dispatcher: trusted ? plain : guarded });
  };

  const guardedFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    for (let hop = 0; ; hop++) {
      let res;
      try {
        res = await one(url, init);
      } catch (err) {
        const cause = (err as { cause?: { name?: string; message?: string } }).cause;
        if (cause?.name === 'ForbiddenAddressError') throw new UpstreamError(`refusing to fetch ${url.origin}: ${cause.message ?? 'a private address'}`, { kind: 'bad_output', cause: err });
        throw err;
      }
      const location = res.headers.get('location');
      if (!REDIRECTS.has(res.status) || !location || init.redirect === 'manual') return res as unknown as Response;
      await res.body?.cancel();
      if (hop >= maxRedirects) throw new UpstreamError(`more than ${maxRedirects} redirects from ${url.origin}`, { kind: 'bad_output' });
      url = new URL(location, url);
    }
  };
  return guardedFetch as typeof fetch;
}
