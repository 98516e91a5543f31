import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { TransactionScope, UnitOfWork } from '../ports/stores.js';
import type { TaskIntake, TaskIntakeRequest, TaskIntakeResult } from '../ports/task-intake.js';
import { admitOnKey } from '../keys/key-admission.js';
import { admitOnMember } from '../members/member-admission.js';

/** Ends the unit of work with a refusal: thrown inside it (so it rolls back), answered outside it. */
class Refusal extends Error {
  constructor(readonly result: Exclude<TaskIntakeResult, { outcome: 'accepted' }>) {
    super(result.outcome);
  }
}

/**
 * The TaskIntake over the fine-grained ports, one call each, in one unit of work: the default for the
 * memory stores and for any set of stores without a faster implementation.
 */
@injectable()
export class UnitOfWorkTaskIntake implements TaskIntake {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  async accept(r: TaskIntakeRequest): Promise<TaskIntakeResult> {
    try {
      return await this.uow.run((tx) => this.write(tx, r));
    } catch (err) {
      if (err instanceof Refusal) return err.result;
      throw err;
    }
  }

  private async write(tx: TransactionScope, r: TaskIntakeRequest): Promise<TaskIntakeResult> {
    const { task, idempotency } = r;
    if (idempotency) {
      const earlier = await tx.idempotency.find(task.userId, idempotency.key);
      if (earlier) throw new Refusal({ outcome: 'replay', requestHash: earlier.requestHash, response: earlier.response });
    }
    if (task.apiKeyId !== null && !(await tx.keys.lockActive(task.apiKeyId))) throw new Refusal({ outcome: 'key_revoked' });
    // The key's own controls, before the balance (a key refusal names the key's limit, not the user's).
    const key = task.apiKeyId === null ? null : await tx.keys.findActiveForUser(task.apiKeyId, task.userId);
    const onKey = key === null ? null : await admitOnKey(tx, key, { ...task, provider: r.providerId }, r.at);
    if (onKey && 'refusal' in onKey) throw new Refusal({ outcome: 'key_refused', refusal: onKey.refusal });
    // The member's spend limit in the organization, after the key's (the key's refusal comes first).
    const onMember = await admitOnMember(tx, task, r.at);
    if ('refusal' in onMember) throw new Refusal(onMember.refusal);
    try {
      // The hold locks the user's account: the counts below cannot race another submission of the user.
      await tx.ledger.hold(task.userId, task.id, task.quotedMicro);
    } catch (err) {
      if (err instanceof GatewayError && err.type === 'insufficient_credits') throw new Refusal({ outcome: 'insufficient_credits' });
      throw err;
    }
    const counts = await tx.tasks.activeCounts(task.userId, task.modality);
    const admitted = counts.admitted < r.maxRunning;
    if (!admitted && counts.queued >= r.maxQueued) throw new Refusal({ outcome: 'queue_full', ...counts });
    await tx.tasks.insert({ ...task, admitted });
    if (onKey) await onKey.afterHold(task.id);
    await onMember.afterHold(task.id);
    if (admitted && r.inline !== true) await tx.jobs.enqueueGeneration(task.id, { providerId: r.providerId });
    if (idempotency && !(await tx.idempotency.save(task.userId, idempotency.key, idempotency.requestHash, idempotency.response))) {
      throw new Refusal({ outcome: 'idempotency_race' });
    }
    return { outcome: 'accepted', admitted };
  }
}
