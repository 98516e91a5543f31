import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import extractor from '@microsoft/api-extractor';

/**
 * The API reports of gengate's public entries (API Extractor, from the built declarations in dist/): one
 * `packages/<package>/api/<entry>.api.md` per entry a package declares in its package.json `exports`,
 * except `./internal` ones (gengate's own plumbing, not a public surface; docs/public-entries.md).
 *
 *   npm run api:report   rewrites the reports (commit them: a change of a public surface is then a visible diff)
 *   npm run api:check    fails when a public surface differs from its checked-in report, printing the diff
 *                        (CI runs this; `--check` here)
 *
 * Both build first; each entry is one API Extractor invocation in this one process. The report is made from a
 * full build (`tsc -b --force`): tsc prints an inferred union in the order it met its members, which an
 * incremental build can change; CI checks the full build `npm ci` made (`tsc -b` is then a no-op).
 */
const { Extractor, ExtractorConfig, ExtractorLogLevel } = extractor;

const ROOT = resolve(import.meta.dirname, '..');
const PACKAGES = ['core', 'adapters', 'host', 'testing', 'client'];
const check = process.argv.includes('--check');

interface Entry {
  readonly pkg: string;
  /** `.` or `./name` as in package.json `exports`. */
  readonly subpath: string;
  /** The report's base name: `index` for `.`, otherwise the subpath without `./` (slashes as dashes). */
  readonly report: string;
  readonly dts: string;
}

type ExportMap = Record<string, { readonly types: string }>;

function entries(): Entry[] {
  return PACKAGES.flatMap((pkg) => {
    const dir = join(ROOT, 'packages', pkg);
    const exports = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports: ExportMap }).exports;
    return Object.entries(exports)
      .filter(([subpath]) => !/(^|\/)internal$/.test(subpath))
      .map(([subpath, conditions]) => ({
        pkg,
        subpath,
        report: subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-'),
        dts: join(dir, conditions.types),
      }));
  });
}

function run(entry: Entry, tempFolder: string): { ok: boolean; changed: boolean; reportPath: string; tempPath: string; errors: string[] } {
  const projectFolder = join(ROOT, 'packages', entry.pkg);
  const reportFolder = join(projectFolder, 'api');
  mkdirSync(reportFolder, { recursive: true });
  const config = ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: join(projectFolder, 'package.json'),
    configObject: {
      projectFolder,
      mainEntryPointFilePath: entry.dts,
      // The built declarations are read as a consumer reads them: no `@gengate/source` condition, so another
      // gengate package's types come from its dist/ and stay external (referenced, not copied into this report).
      compiler: {
        overrideTsconfig: {
          compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'ES2023', lib: ['ES2023'], types: ['node'], strict: true, skipLibCheck: true },
          files: [entry.dts],
        },
      },
      apiReport: { enabled: true, reportFileName: entry.report, reportFolder, reportTempFolder: tempFolder, includeForgottenExports: false },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report is the product; TSDoc style and release tags are not enforced here.
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          // A public declaration that names a type the entry does not export: kept visible in the report.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
  });
  const errors: string[] = [];
  const result = Extractor.invoke(config, {
    localBuild: !check,
    messageCallback: (message) => {
      // A changed or missing report is reported below with its diff; other errors and warnings are listed.
      message.handled = true;
      if (message.messageId.startsWith('console-api-report-')) return;
      if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) errors.push(message.formatMessageWithLocation(projectFolder));
    },
  });
  return {
    ok: result.succeeded,
    changed: result.apiReportChanged,
    reportPath: join(reportFolder, `${entry.report}.api.md`),
    tempPath: join(tempFolder, `${entry.report}.api.md`),
    errors,
  };
}

function diff(expected: string, actual: string): string {
  if (!existsSync(expected)) return `(no checked-in report ${expected})\n`;
  try {
    execFileSync('git', ['diff', '--no-index', '--no-color', '--', relative(ROOT, expected), relative(ROOT, actual)], { cwd: ROOT, encoding: 'utf8' });
    return '';
  } catch (e) {
    return (e as { stdout?: string }).stdout ?? String(e);
  }
}

const temp = join(ROOT, 'node_modules', '.cache', 'api-report');
rmSync(temp, { recursive: true, force: true });
const started = Date.now();
const failed: string[] = [];
for (const entry of entries()) {
  const name = `@gengate/${entry.pkg}${entry.subpath === '.' ? '' : entry.subpath.slice(1)}`;
  const tempFolder = join(temp, entry.pkg);
  const r = run(entry, tempFolder);
  const rel = r.reportPath.slice(ROOT.length + 1);
  if (check && (r.changed || !r.ok)) {
    failed.push(name);
    process.stdout.write(`✗ ${name}: the public surface differs from ${rel}\n${diff(r.reportPath, r.tempPath)}${r.errors.join('\n')}\n`);
  } else if (!r.ok) {
    failed.push(name);
    process.stdout.write(`✗ ${name}: ${r.errors.join('\n')}\n`);
  } else {
    process.stdout.write(`${check ? '✓' : r.changed ? 'wrote' : 'unchanged'} ${name}: ${rel}\n${r.errors.join('\n')}`);
  }
}
// Reports of entries that no longer exist would otherwise linger.
const expected = new Set(entries().map((e) => join(ROOT, 'packages', e.pkg, 'api', `${e.report}.api.md`)));
for (const pkg of PACKAGES) {
  const dir = join(ROOT, 'packages', pkg, 'api');
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir).map((n) => join(dir, n)).filter((f) => !expected.has(f))) {
    if (check) {
      failed.push(f);
      process.stdout.write(`✗ ${f.slice(ROOT.length + 1)}: a report for an entry that is no longer in package.json exports\n`);
    } else {
      rmSync(f);
      process.stdout.write(`removed ${f.slice(ROOT.length + 1)}\n`);
    }
  }
}
process.stdout.write(`${failed.length ? `${failed.length} entr${failed.length === 1 ? 'y fails' : 'ies fail'}` : check ? 'every public entry matches its report' : 'reports written'} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
if (check && failed.length) {
  process.stdout.write(
    'If the change is intended: npm run api:report, and commit packages/*/api/*.api.md. If the diff only reorders the members of an\n' +
      "inferred union, dist/ was built incrementally (tsc prints such unions in the order it met their members): the reports are made\n" +
      'from a full build (npm run api:report runs tsc -b --force), as CI has after npm ci.\n',
  );
}
process.exit(failed.length ? 1 : 0);
