import type pg from 'pg';
import { checkSchemaName } from './schema.js';

/** What a job's spans need of its task (the shape of tracing's TaskTrace). */
export interface TaskTraceRow {
  readonly traceParent: string | null;
  readonly attempts: number;
  readonly modelId: string;
  readonly userId: string;
}

/**
 * Reads a task's trace context (migration 024) and what its job's spans name: one primary-key read per
 * job, made only when tracing is on.
 */
export function taskTraceReader(pool: pg.Pool, schema: string): (taskId: string) => Promise<TaskTraceRow | null> {
  const text = `select trace_parent, attempts, model_id, user_id from ${checkSchemaName(schema)}.tasks where id = $1`;
  return async (taskId) => {
    const r = await pool.query<{ trace_parent: string | null; attempts: number; model_id: string; user_id: string }>(text, [taskId]);
    const row = r.rows[0];
    return row ? { traceParent: row.trace_parent, attempts: row.attempts, modelId: row.model_id, userId: row.user_id } : null;
  };
}
