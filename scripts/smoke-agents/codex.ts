import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The Codex CLI release the smoke installs (toolchain facts: verified offline against local fakes). */
export const CODEX_PACKAGE = '@openai/codex@0.169.0';

export interface AgentRun {
  readonly agent: string;
  readonly model: string;
  readonly ok: boolean;
  readonly exitCode: number | null;
  readonly output: string;
}

/**
 * `codex exec --skip-git-repo-check "say hi"` with a provider whose base_url is gengate's /v1 and whose
 * key is a gengate key (wire_api = "responses": Codex calls POST /v1/responses, streamed), in a fresh
 * CODEX_HOME and HOME so nothing of the machine's own configuration is read.
 */
export async function runCodex(bin: string, baseUrl: string, key: string, model: string): Promise<AgentRun> {
  const home = mkdtempSync(join(tmpdir(), 'gg-codex-'));
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome);
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "gengate"',
      'approval_policy = "never"',
      'sandbox_mode = "read-only"',
      '',
      '[model_providers.gengate]',
      'name = "gengate"',
      `base_url = "${baseUrl}/v1"`,
      'env_key = "GENGATE_API_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  const child = spawn(bin, ['exec', '--skip-git-repo-check', 'say hi'], {
    cwd: home,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: codexHome, GENGATE_API_KEY: key, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const exitCode = await new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  clearTimeout(timer);
  rmSync(home, { recursive: true, force: true });
  return { agent: 'codex', model, ok: exitCode === 0, exitCode, output };
}
