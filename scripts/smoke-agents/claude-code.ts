import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRun } from './codex.js';

/** The Claude Code release the smoke installs (toolchain facts: verified offline against local fakes). */
export const CLAUDE_CODE_PACKAGE = '@anthropic-ai/claude-code@2.1.332';

/** One agent run (the same shape as the Codex section's AgentRun). */
export type ClaudeCodeRun = AgentRun;

/**
 * `claude -p "say hi" --model <model>` with ANTHROPIC_BASE_URL at gengate's origin and a gengate key as
 * ANTHROPIC_API_KEY (Claude Code sends it as x-api-key to POST /v1/messages?beta=true, streamed), in a fresh
 * HOME so nothing of the machine's own configuration is read, and with only PATH passed on (no real key).
 * Tried by hand (2026-11-25) on sandbox.echo-chat and on claude-sonnet-4-5 through the Anthropic fake: exit 0.
 */
export async function runClaudeCode(bin: string, baseUrl: string, key: string, model: string): Promise<ClaudeCodeRun> {
  const home = mkdtempSync(join(tmpdir(), 'gg-claude-code-'));
  const child = spawn(bin, ['-p', 'say hi', '--model', model], {
    cwd: home,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: key, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const exitCode = await new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  clearTimeout(timer);
  // Claude Code prints an API error and may still exit 0: an answer is only one without "API Error".
  return { agent: 'claude-code', model, ok: exitCode === 0 && !output.includes('API Error'), exitCode, output };
}
