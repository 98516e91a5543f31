import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Which test files use the test PostgreSQL server (so CI runs them on both the embedded server and the
 * machine's; the others run once). Decided from the source, not from a list: a file uses the database when
 * its module closure (relative imports, and @gengate/* imports resolved to their `@gengate/source` entry)
 * calls `createTestDatabase` (the host test kit's, @gengate/testing/host) or reads the global setup's
 * `GENGATE_TEST_PG_*` variables. Over-inclusion (a kit module that creates databases, re-exported next to
 * what a file imports) only costs a second run; the closure is followed through re-exports for that reason.
 */
const USES_DATABASE = [/\bcreateTestDatabase\s*\(/, /GENGATE_TEST_PG_/];
/** The kit's own definition of createTestDatabase is not a use of it. */
const DEFINITION = 'packages/testing/src/postgres/test-database.ts';
const IMPORT = /(?:^|[\s;}])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs'];

interface PackageEntries {
  readonly dir: string;
  readonly exports: ReadonlyMap<string, string>;
}

function workspacePackages(root: string): ReadonlyMap<string, PackageEntries> {
  const found = new Map<string, PackageEntries>();
  for (const parent of ['packages', 'examples']) {
    const base = join(root, parent);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const manifest = join(base, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; exports?: Record<string, unknown> };
      if (!pkg.name) continue;
      const exports = new Map<string, string>();
      for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
        const source = typeof target === 'object' && target !== null ? (target as Record<string, unknown>)['@gengate/source'] : undefined;
        if (typeof source === 'string') exports.set(subpath, source);
      }
      found.set(pkg.name, { dir: join(base, name), exports });
    }
  }
  return found;
}

function asFile(candidate: string): string | undefined {
  if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  // TypeScript sources are imported with the .js extension they compile to.
  const stem = candidate.replace(/\.(?:js|mjs|cjs)$/, '');
  for (const ext of SOURCE_EXTENSIONS) if (existsSync(stem + ext)) return stem + ext;
  for (const ext of SOURCE_EXTENSIONS) if (existsSync(join(candidate, `index${ext}`))) return join(candidate, `index${ext}`);
  return undefined;
}

function resolveImport(specifier: string, from: string, packages: ReadonlyMap<string, PackageEntries>): string | undefined {
  if (specifier.startsWith('.')) return asFile(resolve(dirname(from), specifier));
  const m = /^(@gengate\/[^/]+)(\/.*)?$/.exec(specifier);
  if (!m?.[1]) return undefined;
  const pkg = packages.get(m[1]);
  const entry = pkg?.exports.get(`.${m[2] ?? ''}`);
  return pkg && entry ? asFile(join(pkg.dir, entry)) : undefined;
}

function testFiles(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) testFiles(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** The test files (paths relative to root) whose module closure uses the test database. */
export function databaseTestFiles(root: string): string[] {
  const packages = workspacePackages(root);
  const modules = new Map<string, { readonly uses: boolean; readonly imports: readonly string[] }>();
  const scan = (file: string) => {
    let known = modules.get(file);
    if (!known) {
      const text = readFileSync(file, 'utf8');
      const imports: string[] = [];
      for (const match of text.matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2] ?? match[3];
        const target = specifier ? resolveImport(specifier, file, packages) : undefined;
        if (target) imports.push(target);
      }
      known = { uses: relative(root, file) !== DEFINITION && USES_DATABASE.some((re) => re.test(text)), imports };
      modules.set(file, known);
    }
    return known;
  };
  const reachesDatabase = (testFile: string): boolean => {
    const seen = new Set([testFile]);
    const queue = [testFile];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      const { uses, imports } = scan(file);
      if (uses) return true;
      for (const next of imports) if (!seen.has(next)) (seen.add(next), queue.push(next));
    }
    return false;
  };
  const roots = [join(root, 'packages'), join(root, 'examples')].filter((d) => existsSync(d));
  return roots
    .flatMap((d) => testFiles(d, []))
    .filter(reachesDatabase)
    .map((f) => relative(root, f))
    .sort();
}

/**
 * CI's two database lanes share the database files instead of each running all of them: every other file
 * (in path order) runs on the machine's PostgreSQL (`external`), the rest on the embedded server together
 * with every file that needs no database (`embedded`). Every test file runs once per CI run, and each
 * server is exercised by half the database files.
 */
export function externalShare(root: string): string[] {
  return databaseTestFiles(root).filter((_, i) => i % 2 === 0);
}
