import type { Migration } from './migration.js';

/*
 * The callback signing secret belongs to the organization that owns the tasks (docs/organizations.md,
 * docs/callbacks.md): it was kept on users (migration 003), which a non-personal organization has no row
 * of, so its owner could not read the secret and its tasks' callbacks found none. Personal organizations
 * (id = the user's id) take their user's secret, so every receiver keeps verifying with the secret it has.
 * users.webhook_secret stays (unused) so that a rollback to the previous release keeps working.
 */
export const organizationWebhookSecret: Migration = {
  version: 28,
  name: "the callback signing secret is the organization's (personal ones keep their user's)",
  up: (schema) => `
alter table ${schema}.organizations add column webhook_secret text;
update ${schema}.organizations o set webhook_secret = u.webhook_secret from ${schema}.users u where u.id = o.id and u.webhook_secret is not null;
`,
};
