import type { Migration } from './migration.js';

/*
 * `tasks_waiting_by_key` (002: a key's waiting tasks, for failing them when the key is revoked) is a subset
 * of `tasks_key_active` (019: a key's waiting and generating tasks): every query that used it (`api_key_id
 * = $1 and status = 'waiting'`) is answered by the larger partial index, whose predicate it implies, at the
 * cost of skipping the key's generating rows. Every submitted task wrote an entry into both; now one.
 */
export const dropWaitingByKeyIndex: Migration = {
  version: 31,
  name: "a key's waiting tasks are found through tasks_key_active (tasks_waiting_by_key dropped: one index entry less per submission)",
  up: (schema) => `
drop index if exists ${schema}.tasks_waiting_by_key;
`,
};
