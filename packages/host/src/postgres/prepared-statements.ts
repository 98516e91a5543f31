import { hash } from 'node:crypto';
import type { PreparedQueryable, Queryable } from './queryable.js';

/**
 * Named prepared statements. PostgreSQL parses and plans an unnamed statement at every call; a named one
 * once per connection (and, after five custom plans, keeps a generic plan when it costs no more). On the
 * worker's path the planning was much of some statements' time (`pg_stat_statements` with
 * `track_planning`, one chat at a time: the callback's task read planned in 275 µs and run in 50, the
 * claim 157 and 240), and PostgreSQL shares the host's cores.
 *
 * Not for every statement. A connection keeps each statement prepared on it until it closes: name only
 * texts that form a small fixed set (built once per schema), never a text with a value spliced in. And a
 * generic plan can be worse than the custom ones: pg-boss's fetch, prepared, ran in 1,673 µs instead of
 * 606 under the dispatch load (its text also varies with the LIMIT, so most calls planned anyway), so it
 * stays unnamed.
 */

/** The statement's name on each connection: one per text (so per schema and per variant of a text). */
export function preparedName(prefix: string, text: string): string {
  return `${prefix}_${hash('sha256', text, 'hex').slice(0, 16)}`;
}

/** A statement text built once, with its name on each connection. */
export interface NamedStatement {
  readonly text: string;
  readonly name: string;
}

/** A statement text built once, with its name. */
export function prepared(prefix: string, text: string): NamedStatement {
  return { text, name: preparedName(prefix, text) };
}

/**
 * `db` sending each statement as a named prepared statement (name: `prefix` and the text's hash), for a
 * store whose statements are a fixed set of texts built once per schema.
 */
export function preparedQueryable(db: PreparedQueryable, prefix: string): Queryable {
  const names = new Map<string, string>();
  return {
    query: <R extends object>(text: string, values: unknown[] = []) => {
      let name = names.get(text);
      if (name === undefined) names.set(text, (name = preparedName(prefix, text)));
      return db.query<R>({ name, text, values });
    },
  };
}
