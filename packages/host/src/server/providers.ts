import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  ADAPTER_TOKENS,
  adaptersModule,
  ANTHROPIC_KEY_SETTING,
  compatibleProvidersSchema,
  GOOGLE_KEY_SETTING,
  OPENAI_KEY_SETTING,
  type BuiltInAdapterSettings,
  type CompatibleProviderConfig,
} from '@gengate/adapters';
import type { ProviderAdapter } from '@gengate/core';
import { Container } from 'inversify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { videoProvidersFromEnv } from './video-providers.js';
import { ConfigError, fileValues } from './config.js';

/*
 * The real providers, from configuration: each built-in provider is enabled by its key variable (and
 * may point at another base URL), and OPENAI_COMPATIBLE_PROVIDERS declares any number of servers that
 * speak /v1/chat/completions. Every provider is listed whether configured or not (unconfigured ones
 * keep their models, inactive). Errors name the setting and what is wrong, never a value.
 */

export const COMPATIBLE_SETTING = 'OPENAI_COMPATIBLE_PROVIDERS';
const RESERVED_IDS = new Set(['sandbox', 'openai', 'anthropic', 'google', 'fal', 'replicate', 'runway']);

const BUILT_IN = [
  { id: 'openai', key: OPENAI_KEY_SETTING, baseUrl: 'OPENAI_BASE_URL' },
  { id: 'anthropic', key: ANTHROPIC_KEY_SETTING, baseUrl: 'ANTHROPIC_BASE_URL' },
  { id: 'google', key: GOOGLE_KEY_SETTING, baseUrl: 'GOOGLE_BASE_URL' },
] as const;

/** The name of a setting this file reads (besides the key variables the compatible providers name). */
export type ProviderSettingName = (typeof BUILT_IN)[number]['key'] | (typeof BUILT_IN)[number]['baseUrl'] | typeof COMPATIBLE_SETTING;

/**
 * Every setting this file reads. Typed by name, not inferred: an inferred union is printed in the order the
 * compiler met its members, which differs between an incremental and a full build (and so the API report).
 */
export const PROVIDER_SETTINGS: readonly ProviderSettingName[] = [...BUILT_IN.flatMap((p) => [p.key, p.baseUrl]), COMPATIBLE_SETTING];

const apiKey = z
  .string()
  .min(8, 'is too short to be an API key')
  .max(1_000, 'is too long to be an API key')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');
const baseUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

export interface ProviderStatus {
  readonly provider: string;
  readonly active: boolean;
  readonly models: number;
  /** Why it is inactive (names the setting), or where it is reached when active. */
  readonly detail: string;
}

export interface LoadedProviders {
  /** The real providers' adapters (configured or not), in a stable order: built-ins, then compatible ones as declared. */
  readonly adapters: readonly ProviderAdapter[];
  /** Every configured secret value, for redaction from task messages and logs. */
  readonly secrets: readonly string[];
  readonly status: readonly ProviderStatus[];
}

export interface LoadProvidersOptions {
  readonly cwd?: string;
  /** Used by every adapter (tests). */
  readonly fetch?: typeof fetch;
}

function value(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function issuesOf(setting: string, error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const path = i.path.length > 0 ? ` at ${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '')}` : '';
    // zod's messages name types and allowed values, never the input itself.
    return `${setting}${path}: ${i.message}`;
  });
}

/** OPENAI_COMPATIBLE_PROVIDERS: inline JSON (an array, or one provider object) or the path of a JSON file. */
function compatibleProviders(raw: string | undefined, cwd: string, problems: string[]): CompatibleProviderConfig[] {
  if (raw === undefined) return [];
  let text = raw;
  if (!/^[[{]/.test(raw)) {
    try {
      text = readFileSync(resolve(cwd, raw), 'utf8');
    } catch (err) {
      problems.push(`${COMPATIBLE_SETTING}: is neither inline JSON nor a readable JSON file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      return [];
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problems.push(`${COMPATIBLE_SETTING}: is not valid JSON`);
    return [];
  }
  const result = compatibleProvidersSchema.safeParse(Array.isArray(parsed) ? parsed : [parsed]);
  if (!result.success) {
    problems.push(...issuesOf(COMPATIBLE_SETTING, result.error));
    return [];
  }
  result.data.forEach((p, i) => {
    if (RESERVED_IDS.has(p.id)) problems.push(`${COMPATIBLE_SETTING} at [${i}].id: ${p.id} is a built-in provider; choose another id`);
  });
  return result.data;
}

/**
 * Reads and validates the provider settings and builds the real providers' adapters through the adapters
 * module (`adaptersModule` of @gengate/adapters). Throws a ConfigError listing every problem (one per
 * line) when a setting is invalid.
 */
export function loadProviders(env: Readonly<Record<string, string | undefined>>, options: LoadProvidersOptions = {}): LoadedProviders {
  const problems: string[] = [];
  const secrets: string[] = [];
  /** Where each provider is reached, as it may be logged (by provider id). */
  const where = new Map<string, string>();
  const fetchOption = options.fetch ? { fetch: options.fetch } : {};
  const settings: { -readonly [K in (typeof BUILT_IN)[number]['id']]?: BuiltInAdapterSettings[K] } = {};

  for (const p of BUILT_IN) {
    const key = value(env, p.key);
    const url = value(env, p.baseUrl);
    const keyCheck = key === undefined ? null : apiKey.safeParse(key);
    const urlCheck = url === undefined ? null : baseUrl.safeParse(url);
    if (keyCheck && !keyCheck.success) problems.push(...issuesOf(p.key, keyCheck.error));
    if (urlCheck && !urlCheck.success) problems.push(...issuesOf(p.baseUrl, urlCheck.error));
    if (key) secrets.push(key);
    settings[p.id] = { ...(key ? { apiKey: key } : {}), ...(url ? { baseURL: url } : {}), ...fetchOption };
    where.set(p.id, url ? loggable(url) : 'the provider’s default URL');
  }

  // The video providers; Google's Veo models join the Gemini adapter as one `google` provider.
  const video = videoProvidersFromEnv(env);
  // Veo shares the Gemini settings, already checked above: report each setting once.
  problems.push(...video.problems.filter((p) => !problems.some((q) => q.split(':')[0] === p.split(':')[0])));
  secrets.push(...video.secrets.filter((v) => !secrets.includes(v)));

  const compatible: { config: CompatibleProviderConfig; connection: { apiKey?: string; fetch?: typeof fetch } }[] = [];
  for (const config of compatibleProviders(value(env, COMPATIBLE_SETTING), options.cwd ?? process.cwd(), problems)) {
    const key = config.apiKeyEnv ? value(env, config.apiKeyEnv) : undefined;
    if (config.apiKeyEnv && key !== undefined) {
      const check = apiKey.safeParse(key);
      if (!check.success) problems.push(...issuesOf(config.apiKeyEnv, check.error));
      secrets.push(key);
    }
    compatible.push({ config, connection: { ...(key ? { apiKey: key } : {}), ...fetchOption } });
    where.set(config.id, loggable(config.baseURL));
  }

  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  const container = new Container();
  container.load(adaptersModule({ ...settings, ...video.settings, compatible }));
  const adapters = container.get(ADAPTER_TOKENS.BuiltIn);
  const status = adapters.map((adapter) => statusOf(adapter, where.get(adapter.providerId) ?? (adapter.trustedOrigins ?? [])[0] ?? 'the provider’s default URL'));
  return { adapters, secrets, status };
}

/** The settings from GENGATE_CONFIG_FILE with the environment on top (the environment wins), as for the rest of the configuration. */
export function providerEnvironment(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const file = env['GENGATE_CONFIG_FILE'] ? fileValues(env['GENGATE_CONFIG_FILE']) : {};
  return { ...file, ...env };
}

/** A base URL as it may be logged: without user info, query or fragment (they can carry credentials). */
function loggable(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'an invalid URL';
  }
}

function statusOf(adapter: ProviderAdapter, where: string): ProviderStatus {
  const a = adapter.availability ?? { available: true as const };
  return { provider: adapter.providerId, active: a.available, models: adapter.models.length, detail: a.available ? where : a.reason };
}

/** Says at start-up which providers serve calls and why the others do not (never a key). */
export function logProviderStatus(logger: Logger, status: readonly ProviderStatus[]): void {
  for (const s of status) {
    const models = `${s.models} model${s.models === 1 ? '' : 's'}`;
    if (s.active) logger.info({ provider: s.provider, models: s.models, baseUrl: s.detail }, `provider ${s.provider} is active (${models})`);
    else logger.warn({ provider: s.provider, models: s.models }, `provider ${s.provider} is inactive: ${s.detail} Its ${models} ${s.models === 1 ? 'is' : 'are'} listed with is_active false.`);
  }
}
