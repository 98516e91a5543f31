import type { SqlFunction } from './sql-function.js';

/** Trigger on users (025): a new user gets their personal organization (id = the user's) and its owner membership. */
export const personalOrganization: SqlFunction = {
  name: 'gengate_personal_organization',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_personal_organization() returns trigger
language plpgsql as $$
begin
  insert into ${schema}.organizations (id, name, personal, created_at) values (new.id, new.email, true, new.created_at);
  insert into ${schema}.organization_members (organization_id, user_id, role, created_at) values (new.id, new.id, 'owner', new.created_at);
  return null;
end $$;`,
};
