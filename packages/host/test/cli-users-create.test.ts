import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDataDir } from './support/spawn-server.js';

/** Issue 25 item 7: one name for one thing. POST /api-keys answers `key`; so does `gengate users create`. */
describe('gengate users create', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir() };
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('prints the new key as `key` (the name POST /api-keys uses), with `api_key` kept as a deprecated alias of the same value', async () => {
    const out = JSON.parse(await runCli(['users', 'create', '--email', 'name@example.com', '--credits', '10'], env)) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['user_id', 'key', 'api_key']);
    expect(out['key']).toMatch(/^\S{20,}$/);
    expect(out['api_key']).toBe(out['key']);
  });
});
