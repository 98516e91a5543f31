import { checkBalanceAlerts } from '../billing/alert-check.js';
import { UpstreamError } from '../errors/upstream-error.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskOutputFile, TaskRecord } from '../model/task.js';
import type { PriceBook } from '../pricing/price-book.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { GeneratedFile, GenerationResult } from '../ports/provider-adapter.js';
import type { UnitOfWork } from '../ports/stores.js';
import type { NormalizedRequest } from '../run/normalized-request.js';
import { extensionFor } from '../util/media-type.js';
import { MICRO_PER_CREDIT, CREDITS_PER_USD } from '../model/pricing.js';
import type { ExecuteTaskOptions } from './execution-options.js';
import { admitQueued } from './scheduling.js';

/** Micro-credits per micro-USD: 1 USD = 100 credits = 100,000,000 micro-credits. */
const MICRO_CREDITS_PER_MICRO_USD = (CREDITS_PER_USD * MICRO_PER_CREDIT) / 1_000_000;

/**
 * Stores a successful generation's files in the gateway's blob store and commits the success: the charge
 * from what was produced (never above the hold), the task's usage and costs, alerts, the callback and the
 * admission of the user's next queued task, in one transaction. A task that ended meanwhile (cancelled)
 * is not charged and its stored files are deleted.
 */
export class TaskResultWriter {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly blobs: BlobStore,
    private readonly prices: PriceBook,
    private readonly options: Pick<ExecuteTaskOptions, 'fetch' | 'scheduling'>,
  ) {}

  async commitSuccess(
    task: TaskRecord,
    model: ModelDescriptor,
    request: NormalizedRequest,
    result: GenerationResult,
    signal: AbortSignal,
  ): Promise<{ ended: boolean; chargedMicro: number; files: number }> {
    const outputs = await this.storeFiles(task.id, result.files, signal);
    const usage = result.usage ?? {};
    const charge = this.prices.charge(model, request, { costMicro: task.quotedCostMicro, chargeMicro: task.quotedMicro }, usage);
    const ended = await this.uow.run(async (tx) => {
      const ok = await tx.tasks.markSuccess(task.id, {
        outputs,
        warnings: result.warnings ?? [],
        chargedMicro: charge.chargeMicro,
        costMicro: charge.costMicro,
        reportedCostMicro: result.reportedCostMicroUsd === undefined ? null : Math.round(result.reportedCostMicroUsd * MICRO_CREDITS_PER_MICRO_USD),
        usage,
        metadata: result.metadata ?? {},
        at: new Date(),
      });
      if (!ok) return false;
      await tx.ledger.settle(task.id, charge.chargeMicro, `${model.id} generation`);
      await checkBalanceAlerts(tx, task.userId);
      if (task.callbackUrl) await tx.jobs.enqueueCallback(task.id);
      await admitQueued(tx, task.userId, task.modality, this.options.scheduling);
      return true;
    });
    if (!ended) await this.discardFiles(task.id);
    return { ended, chargedMicro: charge.chargeMicro, files: outputs.length };
  }

  /** Files of a task that did not succeed are never kept (and never served). */
  async discardFiles(taskId: string): Promise<void> {
    await this.blobs.deletePrefix(`${taskId}/`);
  }

  private async storeFiles(taskId: string, files: readonly GeneratedFile[], signal: AbortSignal): Promise<TaskOutputFile[]> {
    const outputs: TaskOutputFile[] = [];
    for (const [i, file] of files.entries()) {
      const { data, mediaType } = file.kind === 'bytes' ? file : await this.download(file.url, file.mediaType, signal);
      signal.throwIfAborted();
      const key = `${taskId}/output-${i}.${extensionFor(mediaType)}`;
      await this.blobs.put(key, data, mediaType);
      outputs.push({ key, mediaType, bytes: data.byteLength });
    }
    return outputs;
  }

  private async download(url: string, mediaType: string | undefined, signal: AbortSignal): Promise<{ data: Uint8Array; mediaType: string }> {
    const res = await this.options.fetch(url, { signal });
    if (!res.ok) {
      throw new UpstreamError(`downloading the result failed with HTTP ${res.status}`, { kind: res.status >= 500 ? 'server' : 'bad_output', statusCode: res.status });
    }
    const type = mediaType ?? res.headers.get('content-type')?.split(';')[0] ?? 'application/octet-stream';
    return { data: new Uint8Array(await res.arrayBuffer()), mediaType: type };
  }
}
