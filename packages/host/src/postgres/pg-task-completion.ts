import { randomUUID } from 'node:crypto';
import { microCreditsToMicroUsd, type TaskCompletion, type TaskSuccessCompletion } from '@gengate/core';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { jobReadyStatement } from './job-wakeups.js';
import { QUEUES } from './boss-queues.js';
import { checkSchemaName } from './schema.js';
import { isRefusal, pipelinedTransaction } from './statement-pipeline.js';

const finishSql = (schema: string) => `select ${schema}.gengate_finish_success($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;

/**
 * The TaskCompletion on PostgreSQL: BEGIN, the callback job's insert, gengate_finish_success() (migration
 * 012) and COMMIT in one round trip. When a queued task would take the freed slot or a balance alert
 * changes state (the function raises GGSLW), the general path commits the success instead.
 */
export class PgTaskCompletion implements TaskCompletion {
  private readonly finish: string;

  constructor(
    private readonly pool: pg.Pool,
    /** gengate's schema (the name runMigrations used). */
    schema: string,
    private readonly boss: PgBoss | null,
    private readonly general: TaskCompletion,
  ) {
    this.finish = finishSql(checkSchemaName(schema));
  }

  async succeed(c: TaskSuccessCompletion): Promise<boolean> {
    const { task, success } = c;
    const boss = this.boss;
    if (task.callbackUrl && !boss) throw new Error('this process was started without a job queue');
    try {
      await pipelinedTransaction(this.pool, async (p) => {
        if (task.callbackUrl && boss) await p.sendJob(boss, QUEUES.callback, { taskId: task.id }, { group: { id: task.userId } });
        return {
          result: p.query(this.finish, [
            task.id,
            JSON.stringify(success.outputs),
            JSON.stringify(success.warnings),
            success.chargedMicro,
            microCreditsToMicroUsd(success.chargedMicro),
            success.costMicro,
            success.reportedCostMicro,
            JSON.stringify(success.usage),
            JSON.stringify(success.metadata),
            success.at,
            c.chargeDescription,
            randomUUID(),
          ]),
        };
      },
      // Wakes a callback worker, in the same write after COMMIT (a refused success wakes one for nothing).
      task.callbackUrl ? jobReadyStatement(QUEUES.callback) : undefined);
    } catch (err) {
      if (isRefusal(err) && err.code === 'GGEND') return false;
      if (isRefusal(err) && err.code === 'GGSLW') return this.general.succeed(c);
      throw err;
    }
    return true;
  }
}
