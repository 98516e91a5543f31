import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

/** A stream that keeps what is written to it: `out()` is everything so far. */
function capture(): { sink: Writable; out: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { sink, out: () => text };
}

describe('createLogger', () => {
  it('redacts authorization headers and key secrets', () => {
    const { sink, out } = capture();
    const logger = createLogger({ level: 'info', destination: sink });
    const secret = 'gg_live_SECRETSECRETSECRETSECRETSECRETSECRETSECRE';
    logger.info({ req: { headers: { authorization: `Bearer ${secret}` } }, api_key: secret, nested: { apiKey: secret } }, 'hello');
    expect(out()).toContain('hello');
    expect(out()).toContain('[redacted]');
    expect(out()).not.toContain(secret);
  });

  it('redacts credentials at any depth of a line, in a child logger\'s lines and bindings, and in an error', () => {
    const { sink, out } = capture();
    const logger = createLogger({ level: 'info', destination: sink });
    const secret = 'gg_live_SECRETSECRETSECRETSECRETSECRETSECRETSECRE';
    const child = logger.child({ req: { id: 'r1', headers: { authorization: `Bearer ${secret}`, cookie: `s=${secret}` } }, apiKey: secret, password: secret });
    child.info({ callback: { url: 'https://example.com', webhookSecret: secret }, user: { credentials: { password: secret } }, headers: { Authorization: `Bearer ${secret}` } }, 'child line');
    child.error({ err: Object.assign(new Error('failed'), { apiKey: secret }) }, 'failed line');
    logger.info({ keys: [{ api_key: secret }], secret }, 'array line');
    const lines = out().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l['msg'])).toEqual(['child line', 'failed line', 'array line']);
    expect(out()).not.toContain(secret);
    expect(lines[0]).toMatchObject({ req: { id: 'r1', headers: { authorization: '[redacted]', cookie: '[redacted]' } }, apiKey: '[redacted]', password: '[redacted]' });
    expect(lines[1]).toMatchObject({ err: { message: 'failed', apiKey: '[redacted]' } });
    expect((lines[1]?.['err'] as { stack?: string }).stack).toContain('Error: failed');
  });
});

describe('createLogger with secret values', () => {
  it('masks a secret value wherever it appears in a line', () => {
    const { sink, out } = capture();
    const logger = createLogger({ level: 'info', destination: sink, secrets: ['sk_live_abc123', 'pa"ss\\word'] });
    logger.info({ url: 'postgres://u:pa"ss\\word@h/db', note: 'key sk_live_abc123 here' }, 'started with sk_live_abc123');
    expect(out()).toContain('started with [redacted]');
    expect(out()).not.toContain('sk_live_abc123');
    expect(out()).not.toContain('ss\\\\word');
  });
});

describe('createLogger on standard output', () => {
  it('writes in batches yet loses no line when the process exits at once', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const loggerUrl = new URL('./logger.ts', import.meta.url).href;
    const program = `
      const { createLogger } = await import(${JSON.stringify(loggerUrl)});
      const logger = createLogger({ level: 'info' });
      for (let i = 0; i < 500; i++) logger.info({ i }, 'line');
      process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { maxBuffer: 1 << 24 });
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { i: number });
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});
