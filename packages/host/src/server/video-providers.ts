import { ADAPTER_TOKENS, adaptersModule, type BuiltInAdapterSettings } from '@gengate/adapters';
import type { ProviderAdapter } from '@gengate/core';
import { Container } from 'inversify';
import { z } from 'zod';

/** What the environment configures for the video providers: their adapters, the secrets to redact, and what is wrong. */
export interface VideoProviders {
  /** fal, Replicate, Runway and Google Veo: always all four; one without its key is listed but unavailable. */
  readonly adapters: ProviderAdapter[];
  /** Their settings, for the adapters module (`adaptersModule` of @gengate/adapters). */
  readonly settings: Pick<BuiltInAdapterSettings, 'fal' | 'replicate' | 'runway' | 'veo'>;
  /** Every configured credential, for log and error redaction. */
  readonly secrets: string[];
  /** One sentence per invalid setting, naming the setting and what is wrong (never its value). */
  readonly problems: string[];
}

const secret = z.string().trim().min(1).optional();
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional();

/** Each provider's settings; a provider whose settings are invalid is built without credentials (unavailable). */
const providers = {
  fal: z.object({ FAL_KEY: secret, FAL_BASE_URL: httpUrl, FAL_QUEUE_URL: httpUrl, FAL_JWKS_URL: httpUrl }),
  replicate: z.object({
    REPLICATE_API_TOKEN: secret,
    REPLICATE_BASE_URL: httpUrl,
    REPLICATE_WEBHOOK_SECRET: z.string().trim().regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be a whsec_ signing secret as Replicate shows it').optional(),
  }),
  runway: z.object({ RUNWAYML_API_SECRET: secret, RUNWAY_BASE_URL: httpUrl }),
  google: z.object({ GOOGLE_GENERATIVE_AI_API_KEY: secret, GOOGLE_BASE_URL: httpUrl }),
} as const;

function settings<S extends z.ZodObject>(schema: S, env: Readonly<Record<string, string | undefined>>, problems: string[]): z.infer<S> | null {
  const subset = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = schema.safeParse(subset);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.')}: ${issue.message}`);
  return null;
}

/**
 * Builds the video provider adapters from the environment (zod-validated): FAL_KEY, FAL_BASE_URL,
 * FAL_QUEUE_URL, FAL_JWKS_URL; REPLICATE_API_TOKEN, REPLICATE_BASE_URL, REPLICATE_WEBHOOK_SECRET;
 * RUNWAYML_API_SECRET, RUNWAY_BASE_URL; GOOGLE_GENERATIVE_AI_API_KEY, GOOGLE_BASE_URL.
 */
export function videoProvidersFromEnv(env: Readonly<Record<string, string | undefined>>): VideoProviders {
  const problems: string[] = [];
  const secrets: string[] = [];
  const keep = (...values: (string | undefined)[]) => {
    for (const v of values) if (v) secrets.push(v);
  };

  const fal = settings(providers.fal, env, problems);
  keep(fal?.FAL_KEY);
  const replicate = settings(providers.replicate, env, problems);
  keep(replicate?.REPLICATE_API_TOKEN, replicate?.REPLICATE_WEBHOOK_SECRET);
  const runway = settings(providers.runway, env, problems);
  keep(runway?.RUNWAYML_API_SECRET);
  const google = settings(providers.google, env, problems);
  keep(google?.GOOGLE_GENERATIVE_AI_API_KEY);

  const adapterSettings = {
    fal: fal ? { apiKey: fal.FAL_KEY, baseURL: fal.FAL_BASE_URL, queueURL: fal.FAL_QUEUE_URL, jwksUrl: fal.FAL_JWKS_URL } : {},
    replicate: replicate ? { apiKey: replicate.REPLICATE_API_TOKEN, baseURL: replicate.REPLICATE_BASE_URL, webhookSecret: replicate.REPLICATE_WEBHOOK_SECRET } : {},
    runway: runway ? { apiKey: runway.RUNWAYML_API_SECRET, baseURL: runway.RUNWAY_BASE_URL } : {},
    veo: google ? { apiKey: google.GOOGLE_GENERATIVE_AI_API_KEY, baseURL: google.GOOGLE_BASE_URL } : {},
  };
  // The adapters as the adapters module builds them (only these four are resolved).
  const container = new Container();
  container.load(adaptersModule(adapterSettings));
  const adapters: ProviderAdapter[] = [ADAPTER_TOKENS.Fal, ADAPTER_TOKENS.Replicate, ADAPTER_TOKENS.Runway, ADAPTER_TOKENS.Veo].map((token) => container.get(token));
  return { adapters, settings: adapterSettings, secrets, problems };
}
