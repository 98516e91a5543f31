import type { Migration } from './migration.js';

export const signInLinks: Migration = {
  version: 17,
  name: 'sign-in links: bound to the asking browser; the hourly count per address kept apart from the links',
  up: (schema) => `
-- SHA-256 of the pre-sign-in cookie of the browser that asked for the link (null: asked before this column).
alter table ${schema}.sign_in_tokens add column browser_hash text;

-- When links were sent to each address in the last hour: one row per address, updated by one atomic
-- upsert (its row lock makes the count exact under concurrency). Purging expired links leaves it alone.
create table ${schema}.sign_in_link_sends (
  email text primary key,
  sent_at timestamptz[] not null
);
`,
};
