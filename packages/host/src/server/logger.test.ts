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
