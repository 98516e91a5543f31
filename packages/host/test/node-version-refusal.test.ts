import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../src/node-version.js';

/*
 * Issue 25 item 3: on a Node.js older than the host needs, the built CLI and the library entries refuse with
 * one line naming the version, instead of crashing inside undici at import. Runs the machine's Node 20
 * (/usr/bin/node) on the built files (dist/, as `npm ci` builds them and as the package ships them).
 */
const REPO = resolve(import.meta.dirname, '../../..');
const OLD_NODE = process.env['GENGATE_OLD_NODE'] ?? '/usr/bin/node';
const CLI = join(REPO, 'packages/host/dist/server/cli.js');

async function versionOf(node: string): Promise<string | null> {
  if (!existsSync(node)) return null;
  const { stdout } = await promisify(execFile)(node, ['-p', 'process.versions.node']);
  return stdout.trim();
}
const oldVersion = await versionOf(OLD_NODE);
const tooOld = oldVersion !== null && nodeVersionProblem(oldVersion) !== null;

function run(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(OLD_NODE, [...args], { cwd: join(REPO, 'packages/host') }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(!tooOld)(`the host on an old Node.js (${OLD_NODE}: ${oldVersion ?? 'absent'}; skipped unless older than 22.19.0)`, () => {
  it('`gengate serve` prints one line naming the version needed and exits 1', { timeout: 60_000 }, async () => {
    const r = await run([CLI, 'serve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `gengate needs Node.js 22.19.0 or later; this is Node.js ${oldVersion}. Install a current Node.js (22 LTS from 22.19, or 24) and run it again.\n`,
    );
  });

  it('importing @gengate/host or @gengate/host/server throws that sentence (not a TypeError inside undici)', { timeout: 60_000 }, async () => {
    for (const entry of ['@gengate/host', '@gengate/host/server']) {
      const r = await run(['--input-type=module', '-e', `import(${JSON.stringify(entry)}).then(() => console.log('loaded'), (e) => console.log(e.constructor.name + ': ' + e.message))`]);
      expect(r.stdout.trim(), entry).toBe(`Error: gengate needs Node.js 22.19.0 or later; this is Node.js ${oldVersion}. Install a current Node.js (22 LTS from 22.19, or 24) and run it again.`);
    }
  });
});
