import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, tempDataDir, type SpawnedServer } from './support/spawn-server.js';

const REPO = resolve(import.meta.dirname, '../../..');

/** The README's shell blocks under "Walk-through", as written (only the port of the printed URL differs). */
function walkthroughScript(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Walk-through'));
  if (!section) throw new Error('README has no Walk-through section');
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  return blocks.join('\n');
}

describe('README walk-through', () => {
  let db: TestDatabase;
  let server: SpawnedServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '300' };
    server = await spawnServer(env);
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('takes a chat, an image and a video task to success and downloads a real file of each type', { timeout: 120_000 }, async () => {
    const script = walkthroughScript().replaceAll('http://127.0.0.1:3000', server.url);
    // The key is read under the name POST /api-keys uses (`key`), not the deprecated `api_key` alias.
    expect(script).toMatch(/users create .*\| jq -r \.key\)/);
    const work = tempDataDir();
    // `npm run` must find the repository's package.json; the result files land in the scratch folder.
    const prelude = `npm() { command npm --prefix "${REPO}" "$@"; }\n`;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', prelude + script], {
      cwd: work,
      env: { ...process.env, ...env },
      maxBuffer: 10_000_000,
    });
    expect(stdout.match(/"status": "success"/g)?.length).toBe(3);
    const files = readdirSync(work).filter((f) => f.startsWith('result-'));
    const byExt = (ext: string) => files.filter((f) => f.endsWith(ext)).map((f) => readFileSync(join(work, f)));
    expect(files.length).toBe(3);
    expect(byExt('.txt')[0]?.toString('utf8')).toMatch(/^Sandbox reply to: Say hello/);
    expect(byExt('.png')[0]?.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(byExt('.gif')[0]?.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(stdout).toContain('"currency": "USD"');
  });
});
