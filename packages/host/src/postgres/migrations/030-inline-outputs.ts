import type { Migration } from './migration.js';

/*
 * Small results kept with their task (docs/architecture.md "Small results live in the task row"): a chat
 * answer of a few hundred bytes no longer costs a blob-store write (a file, or an S3 PUT) before its
 * success commits, nor a read when the OpenAI surface answers with it. `output_bodies` is parallel to
 * `outputs` (null at an output kept in the blob store; the column null when none is inline), written by
 * the UPDATE that commits the success (gengate_finish_success), so a body exists exactly when the success
 * does. A column of its own, not a field of `outputs`: the poll reads `outputs` and never the bodies.
 * bytea rather than base64 in jsonb: no encoding on the way out, and TOAST compresses it like any value.
 */
export const inlineOutputs: Migration = {
  version: 30,
  name: 'small results are kept with their task (output_bodies, parallel to outputs)',
  up: (schema) => `
alter table ${schema}.tasks add column output_bodies bytea[];
`,
};
