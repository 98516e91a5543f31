import { admitQueued, type SchedulingOptions } from '../execution/scheduling.js';
import type { TransactionScope } from '../ports/stores.js';

export const REVOKED_MESSAGE = 'The API key that submitted this task was revoked before generation started; no credits were charged.';

/**
 * What follows a key's revocation, in the revoking transaction: the key's tasks that have not started
 * generating end in `fail` (holds released, callbacks queued) and the organization's queued tasks take the
 * freed slots. Returns the ended tasks' ids. Call it only for a key of `organizationId` that is revoked in
 * `tx` (ManageKeys.revoke, and ManageOrganizations when a member's keys go with the member).
 */
export async function endRevokedKeyTasks(tx: TransactionScope, organizationId: string, keyId: string, scheduling: SchedulingOptions, at: Date): Promise<string[]> {
  const ended = await tx.tasks.failWaitingForKey(keyId, REVOKED_MESSAGE, at);
  for (const { id: taskId } of ended) {
    await tx.ledger.release(taskId);
    const task = await tx.tasks.findById(taskId);
    if (task?.callbackUrl) await tx.jobs.enqueueCallback(taskId, task.userId);
  }
  for (const modality of new Set(ended.map((t) => t.modality))) await admitQueued(tx, organizationId, modality, scheduling.maxRunningPerUser[modality]);
  // In id order: a defined order for `failed_task_ids` whatever order the store found them in.
  return ended.map((t) => t.id).sort();
}
