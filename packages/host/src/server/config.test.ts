import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('applies documented defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: null,
      databaseUrl: null,
      dataDir: '/srv/app/.gengate',
      logLevel: 'info',
      trustProxy: [],
      workerConcurrency: 8,
      runWorker: true,
      deadlineSeconds: { chat: 120, image: 300, video: 900 },
      sandboxLatencyMs: null,
    });
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
    expect(lines.find((l) => l.startsWith('PORT:'))).toContain('"abc"');
    expect(lines.some((l) => l.startsWith('DATABASE_URL:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('TRUST_PROXY:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('RUN_WORKER:'))).toBe(true);
  });

  it('reads a JSON file and lets the environment win', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gg-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ PORT: 4000, LOG_LEVEL: 'debug', RUN_WORKER: false }));
    const c = loadConfig({ GENGATE_CONFIG_FILE: file, LOG_LEVEL: 'warn' });
    expect(c.port).toBe(4000);
    expect(c.logLevel).toBe('warn');
    expect(c.runWorker).toBe(false);
  });

  it('strips a trailing slash from PUBLIC_URL and parses TRUST_PROXY', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://api.example.com/', TRUST_PROXY: '10.0.0.0/8, ::1' });
    expect(c.publicUrl).toBe('https://api.example.com');
    expect(c.trustProxy).toEqual(['10.0.0.0/8', '::1']);
  });
});
