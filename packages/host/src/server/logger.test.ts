import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

describe('createLogger', () => {
  it('redacts authorization headers and key secrets', () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const logger = createLogger({ level: 'info', destination: sink });
    const secret = 'gg_live_SECRETSECRETSECRETSECRETSECRETSECRETSECRE';
    logger.info({ req: { headers: { authorization: `Bearer ${secret}` } }, api_key: secret, nested: { apiKey: secret } }, 'hello');
    expect(out).toContain('hello');
    expect(out).toContain('[redacted]');
    expect(out).not.toContain(secret);
  });
});

describe('createLogger with secret values', () => {
  it('masks a secret value wherever it appears in a line', () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const logger = createLogger({ level: 'info', destination: sink, secrets: ['sk_live_abc123', 'pa"ss\\word'] });
    logger.info({ url: 'postgres://u:pa"ss\\word@h/db', note: 'key sk_live_abc123 here' }, 'started with sk_live_abc123');
    expect(out).toContain('started with [redacted]');
    expect(out).not.toContain('sk_live_abc123');
    expect(out).not.toContain('ss\\\\word');
  });
});
