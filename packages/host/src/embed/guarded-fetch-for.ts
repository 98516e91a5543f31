import type { AcceptedProviderAdapter } from '@gengate/core';
import { createGuardedFetch } from '../net/guarded-fetch.js';

/** The fetch used for upstream results and reference inputs: private addresses refused except the adapters' trusted origins. */
export function guardedFetchFor(adapters: readonly AcceptedProviderAdapter[], allowPrivate: boolean): typeof fetch {
  const trustedOrigins = new Set(adapters.flatMap((a) => a.trustedOrigins ?? []));
  return createGuardedFetch({ allowPrivate, trustedOrigins: () => trustedOrigins });
}
