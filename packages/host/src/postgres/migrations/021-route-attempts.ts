import type { Migration } from './migration.js';

export const routeAttempts: Migration = {
  version: 21,
  name: 'routes: the route a task ran on and its attempt log (issue 21)',
  up: (schema) => `
-- The route of the latest attempt that reached an upstream (the provider model id called); null before it.
alter table ${schema}.tasks add column route_id text;
-- Every attempt on a route, in order: {route, provider, outcome, error_class, upstream_status, started_at, ended_at}.
alter table ${schema}.tasks add column route_attempts jsonb not null default '[]'::jsonb;
`,
};
