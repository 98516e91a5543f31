import type { Migration } from './migration.js';

/**
 * A task's api_key_id no longer references api_keys: the KeyStore can be replaced (createPgStores'
 * `replace.keys`) by one that keeps keys elsewhere, and the tasks its keys submit must still insert.
 * Keys are never deleted (revocation sets revoked_at), and a submission checks its key in the same
 * transaction (gengate_submit_task, or KeyStore.lockActive), so the reference guarded nothing else.
 */
export const replaceableKeyStore: Migration = {
  version: 14,
  name: 'tasks.api_key_id without a foreign key, so a replaced KeyStore can keep its keys elsewhere',
  up: (schema) => `alter table ${schema}.tasks drop constraint if exists tasks_api_key_id_fkey;`,
};
