import type { Migration } from './migration.js';

export const webhookPayloads: Migration = {
  version: 10,
  name: 'verified upstream completion webhooks kept on the task until its next status check reads them',
  up: (schema) => `alter table ${schema}.tasks add column webhook_payload jsonb;`,
};
