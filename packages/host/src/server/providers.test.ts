import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { loadProviders, logProviderStatus, providerEnvironment } from './providers.js';

const OPENAI_KEY = 'sk-proj-secretvalue-0123456789';
const ROUTER_KEY = 'sk-or-v1-secret-abcdef0123';

const compatible = [
  {
    id: 'openrouter',
    name: 'OpenRouter',
    baseURL: 'https://openrouter.ai/api/v1',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    models: [{ id: 'llama-3.3-70b', upstreamModel: 'meta-llama/llama-3.3-70b-instruct', name: 'Llama 3.3 70B', capabilities: { maxOutputTokens: 8_192 }, pricing: { inputPerMillionTokens: 130_000, outputPerMillionTokens: 400_000 } }],
  },
  {
    id: 'ollama',
    name: 'Local Ollama',
    baseURL: 'http://127.0.0.1:11434/v1',
    models: [{ id: 'llama3.2', upstreamModel: 'llama3.2:3b', name: 'Llama 3.2', capabilities: { maxOutputTokens: 2_048 }, pricing: { inputPerMillionTokens: 0, outputPerMillionTokens: 0 } }],
  },
];

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('provider settings', () => {
  it('without any setting lists every built-in provider, inactive, naming its key variable', () => {
    const p = loadProviders({});
    expect(p.adapters.map((a) => a.providerId)).toEqual(['openai', 'anthropic', 'google', 'fal', 'replicate', 'runway']);
    expect(p.secrets).toEqual([]);
    expect(p.status.map((s) => [s.provider, s.active])).toEqual([
      ['openai', false],
      ['anthropic', false],
      ['google', false],
      ['fal', false],
      ['replicate', false],
      ['runway', false],
    ]);
    // Gemini and Veo are one provider: one key, one catalog entry per model.
    expect(p.adapters[2]?.models.some((m) => m.id.startsWith('google.veo'))).toBe(true);
    expect(p.status[3]?.detail).toBe('Provider fal is not configured: the operator must set FAL_KEY.');
    expect(p.status[2]?.detail).toBe('Provider google is not configured: the operator must set GOOGLE_GENERATIVE_AI_API_KEY.');
    for (const a of p.adapters) expect(a.models.length).toBeGreaterThan(0);
  });

  it('a key activates its provider and becomes a secret; base URLs are taken', () => {
    const p = loadProviders({ OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: 'https://proxy.example.com/openai/v1', ANTHROPIC_API_KEY: '  ' });
    expect(p.status[0]).toMatchObject({ provider: 'openai', active: true, detail: 'https://proxy.example.com/openai/v1' });
    expect(p.status[1]).toMatchObject({ provider: 'anthropic', active: false });
    expect(p.secrets).toEqual([OPENAI_KEY]);
  });

  it('refuses bad values naming the setting and what is wrong, never the value', () => {
    const message = configError(() =>
      loadProviders({ OPENAI_API_KEY: 'sk bad key with spaces', GOOGLE_BASE_URL: 'ftp://secret-host.example/v1beta', ANTHROPIC_BASE_URL: 'not a url' }),
    );
    expect(message.split('\n')).toEqual([
      'OPENAI_API_KEY: must be printable ASCII without spaces',
      'ANTHROPIC_BASE_URL: must be an http:// or https:// URL',
      'GOOGLE_BASE_URL: must be an http:// or https:// URL',
    ]);
    expect(message).not.toContain('sk bad');
    expect(message).not.toContain('secret-host');
  });

  it('declares two OpenAI-compatible providers inline; a declared key variable that is unset leaves one inactive', () => {
    const p = loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify(compatible) });
    expect(p.adapters.map((a) => a.providerId)).toEqual(['openai', 'anthropic', 'google', 'fal', 'replicate', 'runway', 'openrouter', 'ollama']);
    expect(p.status.slice(6)).toEqual([
      { provider: 'openrouter', active: false, models: 1, detail: 'Provider openrouter is not configured: the operator must set OPENROUTER_API_KEY.' },
      { provider: 'ollama', active: true, models: 1, detail: 'http://127.0.0.1:11434/v1' },
    ]);
    const withKey = loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify(compatible), OPENROUTER_API_KEY: ROUTER_KEY });
    expect(withKey.status[6]?.active).toBe(true);
    expect(withKey.secrets).toEqual([ROUTER_KEY]);
    expect(withKey.adapters[6]?.models.map((m) => m.id)).toEqual(['openrouter.llama-3.3-70b']);
  });

  it('reads OPENAI_COMPATIBLE_PROVIDERS from a JSON file path, and a single provider object', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gengate-providers-'));
    writeFileSync(join(dir, 'providers.json'), JSON.stringify(compatible[1]));
    const p = loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: 'providers.json' }, { cwd: dir });
    expect(p.adapters.at(-1)?.providerId).toBe('ollama');
    expect(configError(() => loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: 'missing.json' }, { cwd: dir }))).toBe(
      'OPENAI_COMPATIBLE_PROVIDERS: is neither inline JSON nor a readable JSON file (ENOENT)',
    );
  });

  it('refuses a bad compatible declaration by the path of the field', () => {
    const bad = structuredClone(compatible);
    (bad[0] as { baseURL: string }).baseURL = 'nope';
    (bad[1]?.models[0] as { pricing: { inputPerMillionTokens: number } }).pricing.inputPerMillionTokens = -1;
    const message = configError(() => loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify(bad) }));
    expect(message).toContain('OPENAI_COMPATIBLE_PROVIDERS at [0].baseURL:');
    expect(message).toContain('OPENAI_COMPATIBLE_PROVIDERS at [1].models[0].pricing.inputPerMillionTokens:');
    expect(configError(() => loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: '[{"id": ' }))).toBe('OPENAI_COMPATIBLE_PROVIDERS: is not valid JSON');
    expect(configError(() => loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify([{ ...compatible[1], id: 'openai' }]) }))).toBe(
      'OPENAI_COMPATIBLE_PROVIDERS at [0].id: openai is a built-in provider; choose another id',
    );
    const dup = configError(() => loadProviders({ OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify([compatible[1], compatible[1]]) }));
    expect(dup).toBe('OPENAI_COMPATIBLE_PROVIDERS at [1].id: provider id ollama is declared twice');
  });

  it('takes settings from GENGATE_CONFIG_FILE, the environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gengate-providers-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ ANTHROPIC_API_KEY: 'sk-ant-from-file-0123', OPENAI_API_KEY: 'sk-from-file-0123456' }));
    const env = providerEnvironment({ GENGATE_CONFIG_FILE: file, OPENAI_API_KEY: OPENAI_KEY });
    expect(loadProviders(env).secrets).toEqual([OPENAI_KEY, 'sk-ant-from-file-0123']);
  });

  it('logs which providers are active and why the others are not, never a key', () => {
    let out = '';
    const sink = new Writable({ write: (chunk: Buffer, _enc, cb) => ((out += chunk.toString()), cb()) });
    const p = loadProviders({ OPENAI_API_KEY: OPENAI_KEY, OPENAI_COMPATIBLE_PROVIDERS: JSON.stringify(compatible), OPENROUTER_API_KEY: ROUTER_KEY });
    logProviderStatus(pino({ level: 'info' }, sink), p.status);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; level: number });
    expect(lines.map((l) => l.msg)).toEqual([
      'provider openai is active (6 models)',
      'provider anthropic is inactive: Provider anthropic is not configured: the operator must set ANTHROPIC_API_KEY. Its 3 models are listed with is_active false.',
      'provider google is inactive: Provider google is not configured: the operator must set GOOGLE_GENERATIVE_AI_API_KEY. Its 7 models are listed with is_active false.',
      'provider fal is inactive: Provider fal is not configured: the operator must set FAL_KEY. Its 5 models are listed with is_active false.',
      'provider replicate is inactive: Provider replicate is not configured: the operator must set REPLICATE_API_TOKEN. Its 5 models are listed with is_active false.',
      'provider runway is inactive: Provider runway is not configured: the operator must set RUNWAYML_API_SECRET. Its 3 models are listed with is_active false.',
      'provider openrouter is active (1 model)',
      'provider ollama is active (1 model)',
    ]);
    expect(out).not.toContain(OPENAI_KEY);
    expect(out).not.toContain(ROUTER_KEY);
  });
});
