import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Migration } from '../../src/postgres/migrations/index.js';

/**
 * Migrations 001-028 exactly as gengate's main at commit f04fa3b wrote them (fixtures/migrations-at-f04fa3b.sql.txt),
 * function bodies included: the upgrade tests build a database as an older gengate left it from these, then
 * start today's code on it. (Today's migrations no longer define functions: runMigrations defines them.)
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/migrations-at-f04fa3b.sql.txt', import.meta.url));
const PLACEHOLDER = 'gengate_fixture_schema';
const MARKER = /^-- gengate migration (\d+): (.*)$/gm;

function load(): Migration[] {
  const text = readFileSync(FIXTURE, 'utf8');
  const marks = [...text.matchAll(MARKER)];
  return marks.map((m, i) => {
    const start = (m.index ?? 0) + m[0].length;
    const sql = text.slice(start, marks[i + 1]?.index ?? text.length).trim();
    return { version: Number(m[1]), name: m[2] ?? '', up: (schema: string) => sql.replaceAll(PLACEHOLDER, schema) };
  });
}

export const MIGRATIONS_AT_F04FA3B: readonly Migration[] = load();
