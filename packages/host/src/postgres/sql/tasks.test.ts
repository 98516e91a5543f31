import { describe, expect, it } from 'vitest';
import { TASK_COLUMNS, TASK_COLUMNS_OF_T } from '../task-row.js';
import { taskSql, type TaskSql } from './tasks.js';

const sql = taskSql('gengate');

/** The statements whose rows PgTaskStore (or PgTaskClaims) maps to a TaskRecord with toTask. */
const MAPPED: readonly (keyof TaskSql)[] = ['insert', 'byId', 'listForUser', 'forUser', 'markGenerating', 'markGeneratingMany', 'listUnfinished', 'listOverdue'];
/** The reads of one task by id, for callers that may read its inline outputs (readOutput). */
const WITH_BODIES: readonly (keyof TaskSql)[] = ['byId', 'forUser'];
/** The writes of the bytes: the success, and their deletion. */
const WRITING_BODIES: readonly (keyof TaskSql)[] = ['markSuccess', 'deleteOutputBodies'];

describe('the task store\'s statements', () => {
  it('name their columns: no `*` but in count(*)', () => {
    for (const [name, text] of Object.entries(sql)) expect(text.replaceAll('count(*)', ''), name).not.toContain('*');
  });

  it('every statement mapped to a task reads the columns toTask reads', () => {
    for (const name of MAPPED) {
      const text = sql[name];
      expect(text.includes(TASK_COLUMNS) || text.includes(TASK_COLUMNS_OF_T), name).toBe(true);
    }
  });

  it('only the reads of one task by id read output_bodies: lists, claims and sweeps do not ship the inline outputs\' bytes', () => {
    const reading = Object.entries(sql)
      .filter(([name, text]) => /\boutput_bodies\b/.test(text) && !WRITING_BODIES.includes(name as keyof TaskSql))
      .map(([name]) => name);
    expect(reading.sort()).toEqual([...WITH_BODIES].sort());
    expect(sql.listForUser).toMatch(/^select id, user_id, .* from gengate\.tasks where /s);
  });

  it('TASK_COLUMNS has each column once, and not output_bodies', () => {
    const names = TASK_COLUMNS.split(', ');
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain('output_bodies');
    expect(names).toEqual(expect.arrayContaining(['id', 'user_id', 'member_id', 'outputs', 'route_attempts', 'finished_at']));
    expect(TASK_COLUMNS_OF_T).toBe(names.map((c) => `t.${c}`).join(', '));
  });
});
