/**
 * npm run smoke:agents: the real coding agents through gengate, offline. Installs each agent's CLI from npm
 * into a temporary folder, starts `gengate serve` on a throw-away database with the provider fakes, and
 * has each agent complete a one-turn prompt on the sandbox chat model and on a provider model through the
 * fakes. Every request an agent sends passes a recorder; `-- --write-fixtures` saves them under
 * packages/host/test/fixtures/agents/ (replayed by packages/host/test/agent-fixtures-replay.test.ts).
 * Exits 1 when an agent fails; a first argument names a JSON result file in vitest's report shape (what
 * .ci/summarize.mjs adds up). Sections: Codex CLI (POST /v1/responses); more agents add a section.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startProviderFakes } from '../packages/host/test/support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir } from '../packages/host/test/support/spawn-server.js';
import { CODEX_PACKAGE, runCodex, type AgentRun } from './smoke-agents/codex.js';
import { CLAUDE_CODE_PACKAGE, runClaudeCode } from './smoke-agents/claude-code.js';
import { startRecorder, type RecordedRequest } from './smoke-agents/recorder.js';
import { scratchDatabase } from './support/scratch-database.js';

const FIXTURES = resolve(import.meta.dirname, '../packages/host/test/fixtures/agents');
const writeFixtures = process.argv.includes('--write-fixtures');
const resultFile = process.argv.slice(2).find((a) => !a.startsWith('--'));

interface Section {
  readonly name: string;
  /** The npm package (with its version) that provides the agent's CLI, and the CLI's name in node_modules/.bin. */
  readonly packageSpec: string;
  readonly bin: string;
  readonly models: readonly string[];
  /** The requests of this agent worth a fixture. */
  readonly fixture: (r: RecordedRequest) => boolean;
  run(bin: string, baseUrl: string, key: string, model: string): Promise<AgentRun>;
}

const SECTIONS: readonly Section[] = [
  { name: 'codex', packageSpec: CODEX_PACKAGE, bin: 'codex', models: ['sandbox.echo-chat', 'openai.gpt-4o-mini'], fixture: (r) => r.path.startsWith('/v1/responses'), run: runCodex },
  { name: 'claude-code', packageSpec: CLAUDE_CODE_PACKAGE, bin: 'claude', models: ['sandbox.echo-chat', 'claude-sonnet-4-5'], fixture: (r) => r.path.startsWith('/v1/messages'), run: runClaudeCode },
];

function npmInstall(dir: string, specs: readonly string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', dir, ...specs], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`npm install ${specs.join(' ')} exited ${String(code)}`))));
  });
}

async function main(): Promise<number> {
  const agentsDir = mkdtempSync(join(tmpdir(), 'gg-agents-'));
  process.stdout.write(`installing ${SECTIONS.map((s) => s.packageSpec).join(', ')} into ${agentsDir}\n`);
  await npmInstall(agentsDir, SECTIONS.map((s) => s.packageSpec));
  const db = await scratchDatabase();
  const fakes = await startProviderFakes();
  const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), ...fakes.env };
  const server = await spawnServer(env);
  const recorder = await startRecorder(server.directUrl);
  let failed = 0;
  let passed = 0;
  try {
    const key = (JSON.parse(await runCli(['users', 'create', '--email', 'smoke-agents@example.com', '--credits', '100'], env)) as { api_key: string }).api_key;
    for (const section of SECTIONS) {
      for (const model of section.models) {
        const from = recorder.requests.length;
        const run = await section.run(join(agentsDir, 'node_modules/.bin', section.bin), recorder.url, key, model);
        const sent = recorder.requests.slice(from).filter(section.fixture);
        const ok = run.ok && sent.length > 0 && sent.every((r) => r.status === 200);
        if (ok) passed++;
        else failed++;
        process.stdout.write(`- ${section.name} on ${model}: ${ok ? 'ok' : 'FAILED'} (exit ${String(run.exitCode)}, ${sent.length} requests: ${sent.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')})\n`);
        process.stdout.write(`${run.output.trim().split('\n').slice(-8).map((l) => `    ${l}`).join('\n')}\n`);
        if (writeFixtures && sent.length > 0) {
          mkdirSync(FIXTURES, { recursive: true });
          const file = join(FIXTURES, `${section.name}-${model}.json`);
          writeFileSync(file, `${JSON.stringify({ agent: section.packageSpec, model, requests: sent }, null, 2)}\n`);
          process.stdout.write(`    saved ${file}\n`);
        }
      }
    }
  } finally {
    await recorder.close();
    await server.stop();
    await fakes.close();
    await db.close();
    rmSync(agentsDir, { recursive: true, force: true });
  }
  if (resultFile) writeFileSync(resultFile, JSON.stringify({ numPassedTests: passed, numFailedTests: failed, testResults: [] }));
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
