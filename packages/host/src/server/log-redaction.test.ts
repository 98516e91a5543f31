import { describe, expect, it } from 'vitest';
import { censorSecrets, isSecretField } from './log-redaction.js';

const SECRET = 'gg_live_SECRETSECRETSECRETSECRETSECRETSECRETSECRE';

describe('censorSecrets', () => {
  it('names every kind of credential and secret, and nothing else', () => {
    for (const name of ['authorization', 'Authorization', 'cookie', 'set-cookie', 'password', 'apiKey', 'api_key', 'API-KEY', 'secret', 'webhookSecret', 'webhook_secret', 'client_secret']) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of ['taskId', 'apiKeyId', 'api_key_id', 'secretHash', 'keyPrefix', 'url', 'method']) expect(isSecretField(name), name).toBe(false);
  });

  it('censors secret fields at any depth, in objects and arrays, and leaves the logged object unchanged', () => {
    const logged = {
      apiKey: SECRET,
      req: { headers: { authorization: `Bearer ${SECRET}`, cookie: `session=${SECRET}` }, id: 'r1' },
      callback: { url: 'https://example.com/hook', webhookSecret: SECRET },
      keys: [{ id: 'k1', api_key: SECRET }],
      deep: { a: { b: { c: { password: SECRET } } } },
    };
    const out = censorSecrets(logged);
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(out).toEqual({
      apiKey: '[redacted]',
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]' }, id: 'r1' },
      callback: { url: 'https://example.com/hook', webhookSecret: '[redacted]' },
      keys: [{ id: 'k1', api_key: '[redacted]' }],
      deep: { a: { b: { c: { password: '[redacted]' } } } },
    });
    expect(logged.req.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(Array.isArray(out.keys)).toBe(true);
  });

  it('returns the very object when it carries no secret (nothing copied)', () => {
    const logged = { taskId: 't1', req: { id: 'r1', method: 'GET' }, list: [1, 2] };
    expect(censorSecrets(logged)).toBe(logged);
  });

  it('keeps an error an error (message, stack, class) when it censors one of its fields', () => {
    const err = Object.assign(new TypeError('boom'), { secret: SECRET, code: 'E1' });
    const out = censorSecrets({ err }).err;
    expect(out).toBeInstanceOf(TypeError);
    expect(out.message).toBe('boom');
    expect(out.stack).toBe(err.stack);
    expect(out.code).toBe('E1');
    expect(out.secret).toBe('[redacted]');
    expect(err.secret).toBe(SECRET);
  });

  it('leaves values with their own JSON form (dates, buffers) as they are, and null or absent secrets as they are', () => {
    const at = new Date(0);
    const bytes = Buffer.from('x');
    const logged = { at, bytes, secret: null, password: undefined };
    expect(censorSecrets(logged)).toBe(logged);
  });

  it('stops at a cycle', () => {
    const a: Record<string, unknown> = { id: 'a' };
    a['self'] = a;
    expect(censorSecrets(a)).toBe(a);
  });
});
