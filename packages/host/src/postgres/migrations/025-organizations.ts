import type { Migration } from './migration.js';

/*
 * Organizations (issue 22, docs/organizations.md). An organization owns the balance, the API keys and the
 * tasks; users are its members with a role. Every user has a personal organization whose id IS the user's
 * id, so the money tables' `user_id` columns (accounts, account_pending, holds, transactions, tasks,
 * api_keys, balance_alerts, idempotency_keys, key_spend, usage rollups) now hold the owning organization's
 * id and need no rewrite: every row written before this migration already names the right personal
 * organization. Their foreign keys to users move to organizations.
 *
 *   organizations            id, name, personal.
 *   organization_members     (organization, user) -> role owner | admin | member, and the member's spend
 *                            limit per budget period (enforced at hold time: a later migration).
 *   organization_invitations e-mail link invitations: token hash, role, expiry, accepted / revoked.
 *   api_keys.member_id       the member who owns the key (existing keys: their user); filled from user_id
 *                            by a trigger when an insert leaves it out.
 *   tasks.member_id          the member who submitted the task; null = the organization's id (a personal
 *                            organization's owner, every task before this migration). Not a foreign key:
 *                            the submission's insert checks one index fewer.
 *   users trigger            a new user gets their personal organization and its owner membership in the
 *                            same statement, whatever inserted the user.
 */
const MONEY_TABLES = ['accounts', 'api_keys', 'tasks', 'holds', 'transactions', 'balance_alerts', 'idempotency_keys'] as const;

const moveForeignKeys = (schema: string) => `
do $$
declare r record;
begin
  for r in
    select c.conname, c.conrelid::regclass as tbl
    from pg_constraint c
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.contype = 'f' and c.confrelid = '${schema}.users'::regclass and cardinality(c.conkey) = 1 and a.attname = 'user_id'
      and c.conrelid in (${MONEY_TABLES.map((t) => `'${schema}.${t}'::regclass`).join(', ')})
  loop
    execute format('alter table %s drop constraint %I', r.tbl, r.conname);
  end loop;
end $$;
${MONEY_TABLES.map((t) => `alter table ${schema}.${t} add constraint ${t}_organization_fkey foreign key (user_id) references ${schema}.organizations(id);`).join('\n')}`;

export const organizations: Migration = {
  version: 25,
  name: 'organizations own balances, keys and tasks; members with roles; invitations; a personal organization per user (id = the user id)',
  up: (schema) => `
create table ${schema}.organizations (
  id uuid primary key,
  name text not null check (length(name) between 1 and 200),
  personal boolean not null default false,
  created_at timestamptz not null default now()
);

create table ${schema}.organization_members (
  organization_id uuid not null references ${schema}.organizations(id) on delete cascade,
  user_id uuid not null references ${schema}.users(id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member')),
  spend_limit_micro bigint check (spend_limit_micro >= 0),
  budget_period text not null default 'month' check (budget_period in ('day', 'week', 'month', 'none')),
  created_at timestamptz not null default now(),
  primary key (organization_id, user_id)
);
create index organization_members_user on ${schema}.organization_members (user_id);

create table ${schema}.organization_invitations (
  id uuid primary key,
  organization_id uuid not null references ${schema}.organizations(id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'member')),
  token_hash text not null unique,
  invited_by uuid not null references ${schema}.users(id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by uuid references ${schema}.users(id),
  revoked_at timestamptz
);
create unique index organization_invitations_pending on ${schema}.organization_invitations (organization_id, lower(email))
  where accepted_at is null and revoked_at is null;

-- Every existing user's personal organization (id = the user's id), the user its owner.
insert into ${schema}.organizations (id, name, personal, created_at) select id, email, true, created_at from ${schema}.users;
insert into ${schema}.organization_members (organization_id, user_id, role, created_at) select id, id, 'owner', created_at from ${schema}.users;

-- gengate_personal_organization(): functions/personal-organization.ts
create trigger users_personal_organization after insert on ${schema}.users
  for each row execute function ${schema}.gengate_personal_organization();

${moveForeignKeys(schema)}

alter table ${schema}.api_keys add column member_id uuid references ${schema}.users(id);
update ${schema}.api_keys set member_id = user_id;
alter table ${schema}.api_keys alter column member_id set not null;
create index api_keys_member on ${schema}.api_keys (user_id, member_id) where revoked_at is null;
-- gengate_key_member_default(): functions/key-member-default.ts
create trigger api_keys_member_default before insert on ${schema}.api_keys
  for each row execute function ${schema}.gengate_key_member_default();

alter table ${schema}.tasks add column member_id uuid;
`,
};
