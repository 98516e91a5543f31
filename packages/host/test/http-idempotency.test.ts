import request from './support/contract-request.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryApp, type MemoryApp } from './support/memory-app.js';

describe('HTTP: Idempotency-Key on POST /run', () => {
  let m: MemoryApp;
  let key: string;
  const auth = () => ({ Authorization: `Bearer ${key}` });

  beforeEach(async () => {
    m = createMemoryApp();
    key = (await m.user()).key;
  });

  it('honours the Idempotency-Key header: replay, 409 for another body, 400 for a malformed key', async () => {
    const post = (body: object, key: string) => request(m.app).post('/api/v1/run/sandbox.echo-chat').set(auth()).set('Idempotency-Key', key).send(body);
    const first = await post({ prompt: 'once' }, 'abc-1');
    const again = await post({ prompt: 'once' }, 'abc-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(m.db.tasks.size).toBe(1);
    const other = await post({ prompt: 'twice' }, 'abc-1');
    expect(other.status).toBe(409);
    expect(other.body.error).toEqual({ type: 'conflict', param: 'Idempotency-Key' });
    expect((await post({ prompt: 'x' }, 'has space')).status).toBe(400);
    expect(m.db.tasks.size).toBe(1);
  });
});
