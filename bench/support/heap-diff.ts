/**
 * What grew between two heap snapshots (node's .heapsnapshot, e.g. from `npm run bench:memory --
 * --heap-snapshots DIR`): objects counted and summed (self size) by kind and constructor, the largest
 * differences first. Strings are grouped by their first characters, so a cache of similar keys shows.
 *
 *   TSX_TSCONFIG_PATH=tsconfig.runner.json node --import tsx bench/support/heap-diff.ts BEFORE AFTER [--top N]
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: string[]; readonly node_types: [string[], ...unknown[]] } };
  readonly nodes: number[];
  readonly strings: string[];
}

type Groups = Map<string, { count: number; size: number }>;

function groups(file: string): Groups {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out: Groups = new Map();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt] ?? 0] ?? '?';
    const name = s.strings[s.nodes[i + nameAt] ?? 0] ?? '?';
    const key = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? `${type}: ${JSON.stringify(name.slice(0, 24))}` : `${type}: ${name.slice(0, 80)}`;
    const g = out.get(key) ?? { count: 0, size: 0 };
    g.count++;
    g.size += s.nodes[i + sizeAt] ?? 0;
    out.set(key, g);
  }
  return out;
}

const [before, after] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const topAt = process.argv.indexOf('--top');
const top = topAt >= 0 ? Number(process.argv[topAt + 1]) : 40;
if (!before || !after) throw new Error('usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top N]');
const a = groups(before);
const b = groups(after);
const total = (g: Groups) => [...g.values()].reduce((n, x) => n + x.size, 0);
const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => {
  const x = a.get(key) ?? { count: 0, size: 0 };
  const y = b.get(key) ?? { count: 0, size: 0 };
  return { key, dCount: y.count - x.count, dSize: y.size - x.size, count: y.count, size: y.size };
});
rows.sort((p, q) => Math.abs(q.dSize) - Math.abs(p.dSize));
const kb = (n: number) => (n / 1024).toFixed(1);
process.stdout.write(`total self size: ${kb(total(a))} KB -> ${kb(total(b))} KB\n| kind: constructor | Δ count | Δ KB | count | KB |\n|---|---|---|---|---|\n`);
for (const r of rows.slice(0, top)) process.stdout.write(`| ${r.key} | ${r.dCount} | ${kb(r.dSize)} | ${r.count} | ${kb(r.size)} |\n`);
