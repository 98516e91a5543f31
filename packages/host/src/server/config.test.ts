import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOST_SETTINGS } from '../embed/host-settings.js';
import { ConfigError, loadConfig, secretValues } from './config.js';

describe('loadConfig', () => {
  it('reads ROUTED_MODELS as a JSON array of routed models, validated; a bad one names the setting, not the value', () => {
    expect(loadConfig({}).routedModels).toEqual([]);
    const declared = [{ id: 'flux-schnell', name: 'FLUX.1 [schnell]', routes: ['fal.flux-schnell', 'replicate.flux-schnell'], policy: { sort: 'price' } }];
    expect(loadConfig({ ROUTED_MODELS: JSON.stringify(declared) }).routedModels).toEqual(declared);
    expect(() => loadConfig({ ROUTED_MODELS: '[{"id": "x"' })).toThrow(/^ROUTED_MODELS: must be a JSON array of routed models/);
    expect(() => loadConfig({ ROUTED_MODELS: JSON.stringify([{ ...declared[0], policy: { sort: 'cheapest' } }]) })).toThrow(/^ROUTED_MODELS: 0\.policy\.sort: /);
    expect(() => loadConfig({ ROUTED_MODELS: JSON.stringify([{ ...declared[0], routes: [] }]) })).toThrow(/^ROUTED_MODELS: 0\.routes: /);
  });

  it('applies documented defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: null,
      databaseUrl: null,
      databaseSchema: 'gengate',
      dataDir: '/srv/app/.gengate',
      logLevel: 'info',
      trustProxy: [],
      workerConcurrency: 32,
      runWorker: true,
      deadlineSeconds: { chat: 120, image: 300, video: 900 },
      sandboxLatencyMs: null,
      ops: { metricsPort: null, metricsToken: null, maxQueuedJobs: 50_000, queueSampleIntervalMs: 1_000 },
      retentionDays: null,
    });
  });

  it('reads the metrics port, back-pressure limit, sample interval and retention, and refuses a metrics port equal to PORT', () => {
    const c = loadConfig({ METRICS_PORT: '9100', MAX_QUEUED_JOBS: '100', QUEUE_SAMPLE_INTERVAL_MS: '250', RETENTION_DAYS: '30' });
    expect(c.ops).toEqual({ metricsPort: 9100, metricsToken: null, maxQueuedJobs: 100, queueSampleIntervalMs: 250 });
    expect(c.retentionDays).toBe(30);
    expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow(/^METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ MAX_QUEUED_JOBS: '0', QUEUE_SAMPLE_INTERVAL_MS: '5', RETENTION_DAYS: '0' })).toThrow(ConfigError);
  });

  it('reads the route breakers’ settings, with the documented defaults, and refuses a cap below the cooldown', () => {
    expect(loadConfig({}).routeHealth).toEqual({
      breaker: { consecutiveFailures: 5, errorRatePercent: 50, minAttempts: 20, windowMs: 30_000, latencyP50Ms: null, cooldownMs: 15_000, maxCooldownMs: 120_000 },
    });
    const c = loadConfig({ ROUTE_BREAKER_CONSECUTIVE_FAILURES: '3', ROUTE_BREAKER_LATENCY_P50_MS: '8000', ROUTE_BREAKER_COOLDOWN_MS: '5000', ROUTE_BREAKER_MAX_COOLDOWN_MS: '60000' });
    expect(c.routeHealth.breaker).toMatchObject({ consecutiveFailures: 3, latencyP50Ms: 8_000, cooldownMs: 5_000, maxCooldownMs: 60_000 });
    expect(() => loadConfig({ ROUTE_BREAKER_COOLDOWN_MS: '60000', ROUTE_BREAKER_MAX_COOLDOWN_MS: '1000' })).toThrow(/ROUTE_BREAKER_MAX_COOLDOWN_MS: must be at least ROUTE_BREAKER_COOLDOWN_MS/);
    expect(() => loadConfig({ ROUTE_BREAKER_ERROR_RATE_PERCENT: '0' })).toThrow(ConfigError);
  });

  it('reads METRICS_TOKEN (at least 16 printable characters, never echoed) and masks it as a secret', () => {
    const token = 'a3f1c2e4b5d60718293a4b5c6d7e8f90';
    expect(loadConfig({ METRICS_TOKEN: token }).ops.metricsToken).toBe(token);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/^METRICS_TOKEN: must be 16 to 256 printable characters/);
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in it ok' })).toThrow(ConfigError);
    expect(secretValues({ METRICS_TOKEN: token })).toContain(token);
  });

  it('reports every bad value on its own line', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', TRUST_PROXY: '10.0.0.0/8,nope', RUN_WORKER: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as Error).message.split('\n');
    expect(lines.length).toBe(4);
    expect(lines.find((l) => l.startsWith('PORT:'))).toMatch(/^PORT: must be an integer/);
    expect(lines.some((l) => l.startsWith('DATABASE_URL:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('TRUST_PROXY:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('RUN_WORKER:'))).toBe(true);
  });

  it('takes DATABASE_SCHEMA as a plain lowercase identifier only', () => {
    expect(loadConfig({ DATABASE_SCHEMA: 'gg_tenant_7' }).databaseSchema).toBe('gg_tenant_7');
    for (const bad of ['Gengate', '7gengate', 'gen-gate', 'gen.gate', 'x'.repeat(64), 'a"; drop schema public; --']) {
      expect(() => loadConfig({ DATABASE_SCHEMA: bad }), bad).toThrow(/DATABASE_SCHEMA: must be a lowercase PostgreSQL identifier/);
    }
  });

  it('reads a JSON file and lets the environment win', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gg-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ PORT: 4000, LOG_LEVEL: 'debug', RUN_WORKER: false }));
    const c = loadConfig({ GENGATE_CONFIG_FILE: file, LOG_LEVEL: 'warn' });
    expect(c.port).toBe(4000);
    expect(c.logLevel).toBe('warn');
    expect(c.runWorker).toBe(false);
    expect(c.role).toBe('api');
  });

  it('runs the idle memory release unless IDLE_MEMORY_RELEASE=false', () => {
    expect(loadConfig({}).idleMemoryRelease).toBe(true);
    expect(loadConfig({ IDLE_MEMORY_RELEASE: 'false' }).idleMemoryRelease).toBe(false);
    expect(() => loadConfig({ IDLE_MEMORY_RELEASE: 'sometimes' })).toThrow(/^IDLE_MEMORY_RELEASE: /);
  });

  it('reads ROLE (env) or role (JSON file); RUN_WORKER=false still means api; ROLE wins', () => {
    expect(loadConfig({}).role).toBe('all');
    expect(loadConfig({ ROLE: 'worker' })).toMatchObject({ role: 'worker', runWorker: true });
    expect(loadConfig({ ROLE: 'api' })).toMatchObject({ role: 'api', runWorker: false });
    expect(loadConfig({ RUN_WORKER: 'false' }).role).toBe('api');
    expect(loadConfig({ RUN_WORKER: 'false', ROLE: 'all' }).role).toBe('all');
    const file = join(mkdtempSync(join(tmpdir(), 'gg-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ role: 'worker' }));
    expect(loadConfig({ GENGATE_CONFIG_FILE: file }).role).toBe('worker');
    expect(() => loadConfig({ ROLE: 'everything' })).toThrow(/^ROLE: /);
  });

  it('has the facade defaults (DEFAULT_HOST_SETTINGS) as its own defaults', () => {
    const c = loadConfig({});
    const d = DEFAULT_HOST_SETTINGS;
    expect({
      deadlineSeconds: c.deadlineSeconds,
      scheduling: c.scheduling,
      workerConcurrency: c.workerConcurrency,
      checkConcurrency: c.checkConcurrency,
      callbacks: c.callbacks,
      fetching: c.fetching,
      resultUrlTtlSeconds: c.resultUrlTtlSeconds,
      fileAccess: c.fileAccess,
      maintenanceCron: c.maintenanceCron,
      manualTopupExpiryHours: c.manualTopupExpiryHours,
      shutdownGraceMs: c.shutdownGraceMs,
      trustProxy: c.trustProxy,
      markup: c.markup,
      limits: c.providerLimits('openai'),
      ops: c.ops,
      retentionDays: c.retentionDays,
    }).toEqual({
      deadlineSeconds: d.deadlineSeconds,
      scheduling: d.scheduling,
      workerConcurrency: d.workerConcurrency,
      checkConcurrency: d.checkConcurrency,
      callbacks: d.callbacks,
      fetching: d.fetching,
      resultUrlTtlSeconds: d.resultUrlTtlSeconds,
      fileAccess: d.fileAccess,
      maintenanceCron: d.maintenanceCron,
      manualTopupExpiryHours: d.manualTopupExpiryHours,
      shutdownGraceMs: d.shutdownGraceMs,
      trustProxy: d.trustProxy,
      markup: d.markup,
      limits: d.providerLimits('openai'),
      ops: d.ops,
      retentionDays: d.retentionDays,
    });
  });

  it('strips a trailing slash from PUBLIC_URL and parses TRUST_PROXY', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://api.example.com/', TRUST_PROXY: '10.0.0.0/8, ::1' });
    expect(c.publicUrl).toBe('https://api.example.com');
    expect(c.trustProxy).toEqual(['10.0.0.0/8', '::1']);
  });

  it('never prints a value: a rejected secret is named, not echoed', () => {
    const secrets = ['sk_live_SECRETvalue-with-dash', 'whsec_bad secret', 'pa55word-db', 'smtp-pa55word'];
    let error: unknown;
    try {
      loadConfig({
        PAYMENT_PROCESSOR: 'stripe',
        STRIPE_SECRET_KEY: secrets[0],
        STRIPE_WEBHOOK_SECRET: secrets[1],
        DATABASE_URL: `mysql://admin:${secrets[2]}@db.internal:3306/app`,
        SMTP_URL: `http://mailer:${secrets[3]}@smtp.internal:25`,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as Error).message;
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).toMatch(/^STRIPE_SECRET_KEY: /m);
    expect(text).toMatch(/^STRIPE_WEBHOOK_SECRET: /m);
    expect(text).toMatch(/^DATABASE_URL: /m);
    expect(text).toMatch(/^SMTP_URL: /m);
  });
});
