/**
 * The ```ts blocks of a Markdown page: ```ts file=name.ts names a block (so another block of the page can
 * import './name.js'); an HTML comment right before a block, <!-- ts-prelude ... -->, is code prepended to
 * it (the declarations a fragment assumes), invisible on the rendered page. Used by the docs type-check
 * (packages/host/test/docs-snippets.test.ts) and by the pack smoke (the adapter guide's examples).
 */
export interface DocSnippet {
  readonly page: string;
  /** The page line of the block's first code line. */
  readonly line: number;
  /** Its file=name, or snippet-<line>.ts. */
  readonly file: string;
  readonly named: boolean;
  /** Lines of prelude before the block's own code in `code`. */
  readonly preludeLines: number;
  /** Prelude, the block, and `export {};` (every block is a module). */
  readonly code: string;
  /** The block alone, as shown on the page. */
  readonly shown: string;
}

export function docSnippets(page: string, text: string): DocSnippet[] {
  const out: DocSnippet[] = [];
  const fence = /(?:<!--\s*ts-prelude\s*\n([\s\S]*?)-->\s*\n)?```ts([^\n]*)\n([\s\S]*?)^```/gm;
  for (const m of text.matchAll(fence)) {
    const prelude = m[1] ?? '';
    const name = /file=(\S+\.ts)/.exec(m[2] ?? '')?.[1];
    const codeStart = (m.index ?? 0) + m[0].indexOf('```ts');
    const line = text.slice(0, codeStart).split('\n').length + 1;
    const shown = m[3] ?? '';
    out.push({
      page,
      line,
      file: name ?? `snippet-${line}.ts`,
      named: name !== undefined,
      preludeLines: prelude.split('\n').length - 1,
      code: `${prelude}${shown}\nexport {};\n`,
      shown,
    });
  }
  return out;
}
