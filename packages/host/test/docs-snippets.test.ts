import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { docSnippets, type DocSnippet } from '../../../scripts/support/doc-snippets.js';

/*
 * Every ```ts block of docs/ and the READMEs is type-checked against the workspace packages as a consumer sees
 * them (their built declarations: `npm ci` builds them, `npx tsc -b` after a change), under the strictest common
 * settings (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess).
 *
 * - A block is a module of its own. ```ts file=name.ts names it, so another block of the same page can
 *   import it ('./name.js'), as the adapter guide's tests import its adapters.
 * - An HTML comment right before a block, <!-- ts-prelude ... -->, is code prepended to it: the declarations
 *   a fragment assumes (an `app`, a `pool`), invisible on the rendered page. Errors are reported at the
 *   page's own line.
 */
const REPO = resolve(import.meta.dirname, '../../..');
const PAGES = [
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'README.md',
  ...['packages', 'examples'].flatMap((d) =>
    readdirSync(join(REPO, d))
      .map((p) => `${d}/${p}/README.md`)
      .filter((f) => {
        try {
          return readFileSync(join(REPO, f), 'utf8').length > 0;
        } catch {
          return false;
        }
      }),
  ),
];

type Snippet = DocSnippet;

const snippets = PAGES.flatMap((page) => docSnippets(page, readFileSync(join(REPO, page), 'utf8')));
/** Virtual files, next to the tests so the workspace's node_modules resolve: one folder per page. */
const root = join(REPO, 'packages/host/test/__doc_snippets__');
const pathOf = (s: Snippet) => join(root, s.page.replace(/[/.]/g, '_'), s.file);

describe('TypeScript in the docs', () => {
  it('finds the blocks: the adapter guide has its one-shot image and long-running video adapters, each with its test', () => {
    const guide = snippets.filter((s) => s.page === 'docs/writing-an-adapter.md').map((s) => s.file);
    expect(guide).toEqual(expect.arrayContaining(['acme-image.ts', 'acme-image.test.ts', 'acme-video.ts', 'acme-video.test.ts']));
    expect(snippets.length).toBeGreaterThanOrEqual(15);
  });

  it('every ```ts block of docs/ and the READMEs type-checks against the workspace packages', { timeout: 180_000 }, () => {
    const files = new Map(snippets.map((s) => [pathOf(s), s]));
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2023,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
      esModuleInterop: true,
      // The repo's setting (tsconfig.base.json): the DI docs show inversify's legacy decorators.
      experimentalDecorators: true,
    };
    const host = ts.createCompilerHost(options);
    const base = { getSourceFile: host.getSourceFile, fileExists: host.fileExists, readFile: host.readFile };
    host.directoryExists = (d) => d.startsWith(root) || ts.sys.directoryExists(d);
    host.fileExists = (f) => files.has(f) || base.fileExists.call(host, f);
    host.readFile = (f) => files.get(f)?.code ?? base.readFile.call(host, f);
    host.getSourceFile = (f, v, onError, create) => {
      const s = files.get(f);
      return s ? ts.createSourceFile(f, s.code, v) : base.getSourceFile.call(host, f, v, onError, create);
    };
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && files.has(d.file.fileName))
      .map((d) => {
        const s = files.get(d.file?.fileName ?? '') as Snippet;
        const { line } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: 0 };
        const where = line < s.preludeLines ? `${s.page} (prelude of the block at line ${s.line})` : `${s.page}:${s.line + line - s.preludeLines}`;
        return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems, `compiled ${files.size} blocks from ${relative(REPO, dirname(root))}`).toEqual([]);
  });
});
