import type { Migration } from './migration.js';

/**
 * A task's trace context (issue 21, OpenTelemetry): the W3C `traceparent` of the span that submitted it, so
 * every job of the task (its generation job, retries, status checks, the admission of a queued task) joins
 * the submission's trace. It lives on the task row rather than in each job's data because the money-rule
 * functions (migrations 018 to 020) insert the jobs themselves; one column reaches every job without touching them.
 *
 * gengate_submit_task_traced: gengate_submit_task, then the trace context written in the same transaction
 * (the function is its own transaction: a refusal raised by gengate_submit_task writes nothing). Called only
 * when tracing is on; with tracing off the intake calls gengate_submit_task as before.
 */
export const traceContext: Migration = {
  version: 24,
  name: 'trace context: the submission span of each task, carried across the queue to its jobs',
  up: (schema) => `
alter table ${schema}.tasks add column trace_parent text;

-- gengate_submit_task_traced(): functions/submit-task-traced.ts
`,
};
