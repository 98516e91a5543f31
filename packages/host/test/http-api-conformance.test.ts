import { createTestDatabase, describeHttpApiConformance, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll } from 'vitest';
import { runCli, spawnServer, tempDataDir, type SpawnedServer } from './support/spawn-server.js';

/** The black-box conformance kit, run against the real standalone server (what an implementer would do). */
let db: TestDatabase;
let server: SpawnedServer;
let env: NodeJS.ProcessEnv;
let users = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '50' };
  server = await spawnServer(env);
});

afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

describeHttpApiConformance('gengate standalone server', {
  apiUrl: () => `${server.url}/api/v1`,
  async createUser(credits) {
    const out = await runCli(['users', 'create', '--email', `conformance${++users}@example.com`, '--credits', String(credits)], env);
    return { apiKey: (JSON.parse(out) as { api_key: string }).api_key };
  },
  models: { chat: 'sandbox.echo-chat', image: 'sandbox.pixel-image', video: 'sandbox.motion-video', failing: 'sandbox.always-fail' },
  taskTimeoutMs: 20_000,
});
