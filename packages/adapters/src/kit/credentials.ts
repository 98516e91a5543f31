import type { AdapterAvailability } from '@gengate/core/adapter';

/** What every SDK-based adapter factory takes: credentials and endpoint from configuration, fetch for tests. */
export interface ProviderConnection {
  /** The operator's API key; absent: the provider's models stay listed, inactive. */
  readonly apiKey?: string;
  /** Override of the provider's API base URL (a proxy, a regional endpoint, a fake in tests). */
  readonly baseURL?: string;
  readonly fetch?: typeof fetch;
  /** The configuration setting that holds the key, named in messages (default: the provider's usual variable). */
  readonly keySetting?: string;
}

/** Available with a key; otherwise unavailable, naming the setting (never a value). */
export function keyAvailability(providerId: string, apiKey: string | undefined, keySetting: string): AdapterAvailability {
  if (apiKey !== undefined && apiKey.length > 0) return { available: true, settings: [keySetting] };
  return {
    available: false,
    reason: `Provider ${providerId} is not configured: the operator must set ${keySetting}.`,
    settings: [keySetting],
  };
}

/** A placeholder key for an unconfigured provider's SDK client (never sent: unconfigured providers refuse runs before any call). */
export const NO_KEY = 'gengate-not-configured';
