import type { SqlFunction } from './sql-function.js';

/** Trigger on api_keys (025): a key inserted without its member belongs to its organization's id (its user). */
export const keyMemberDefault: SqlFunction = {
  name: 'gengate_key_member_default',
  identityArgs: '',
  sql: (schema) => `
create or replace function ${schema}.gengate_key_member_default() returns trigger
language plpgsql as $$
begin
  if new.member_id is null then new.member_id := new.user_id; end if;
  return new;
end $$;`,
};
