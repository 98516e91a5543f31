import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../functions/index.js';
import { MIGRATIONS } from './index.js';

describe('migrations and the function set', () => {
  it('no migration defines a function: bodies live in functions/ (one file each), which runMigrations applies', () => {
    for (const m of MIGRATIONS) expect(m.up('gengate'), `migration ${m.version}`).not.toMatch(/create\s+(or\s+replace\s+)?function/i);
  });

  it('no migration drops a function: a signature no longer in functions/ is dropped by the function set', () => {
    for (const m of MIGRATIONS) expect(m.up('gengate'), `migration ${m.version}`).not.toMatch(/drop\s+function/i);
  });

  it('each function of the set is defined once, by its own file, under its name in the schema', () => {
    expect(new Set(FUNCTIONS.map((f) => f.name)).size).toBe(FUNCTIONS.length);
    for (const f of FUNCTIONS) {
      expect(f.name).toMatch(/^gengate_[a-z_]+$/);
      const sql = f.sql('gg_schema');
      expect(sql.match(/create\s+or\s+replace\s+function/gi), f.name).toHaveLength(1);
      expect(sql, f.name).toContain(`create or replace function gg_schema.${f.name}(`);
    }
  });
});
