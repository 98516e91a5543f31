import type { Migration } from './migration.js';

export const providerCallLeases: Migration = {
  version: 9,
  name: 'per-provider concurrent call leases shared by worker processes',
  up: (schema) => `
create table ${schema}.provider_call_leases (
  id uuid primary key,
  provider text not null,
  holder text not null,
  expires_at timestamptz not null
);
create index provider_call_leases_provider on ${schema}.provider_call_leases (provider, expires_at);
`,
};
