import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelRegistry } from '../catalog/model-registry.js';
import { isUpstreamError, UpstreamError } from '../errors/upstream-error.js';
import type { Modality } from '../model/modality.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskOutputFile, TaskRecord } from '../model/task.js';
import { actualCost } from '../pricing/quote.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { AdapterCall, GeneratedFile, GenerationResult, ProviderAdapter } from '../ports/provider-adapter.js';
import type { Clock, Logger } from '../ports/system.js';
import type { TaskStore, UnitOfWork } from '../ports/stores.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import { extensionFor } from '../util/media-type.js';
import { checkBalanceAlerts } from '../billing/alert-check.js';
import { FailTask } from './fail-task.js';

export interface ExecuteTaskOptions {
  /** Maximum run time per modality, in milliseconds, counted from the first start. */
  readonly deadlineMs: Readonly<Record<Modality, number>>;
  /** Used to download files an adapter returns as URLs. */
  readonly fetch: typeof fetch;
}

export const DEFAULT_DEADLINES_MS: Readonly<Record<Modality, number>> = {
  chat: 120_000,
  image: 300_000,
  video: 900_000,
};

export type ExecuteOutcome = 'success' | 'fail' | 'skipped';

class DeadlineExceeded extends Error {}

/**
 * Drives one task: waiting -> generating -> success | fail. Called by the generation worker for each
 * attempt of the task's job. Throws (so the job is retried) only when the process is shutting down
 * or the upstream failure is retryable and this is not the last attempt.
 */
export class ExecuteTask {
  private readonly failTask: FailTask;

  constructor(
    private readonly registry: ModelRegistry,
    private readonly tasks: TaskStore,
    private readonly uow: UnitOfWork,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: ExecuteTaskOptions,
  ) {
    this.failTask = new FailTask(uow);
  }

  async execute(taskId: string, shutdown: AbortSignal, attempt: { isLast: boolean }): Promise<ExecuteOutcome> {
    const existing = await this.tasks.findById(taskId);
    if (!existing || existing.status === 'success' || existing.status === 'fail') return 'skipped';
    const log = this.logger.child({ taskId, modelId: existing.modelId });
    const model = this.registry.find(existing.modelId);
    if (!model) return this.fail(taskId, `Model ${existing.modelId} is no longer available.`, log);
    let request;
    try {
      request = normalizeRunRequest(model, existing.request);
    } catch (e) {
      return this.fail(taskId, `The request is no longer valid for this model: ${(e as Error).message}`, log);
    }
    const task = await this.tasks.markGenerating(taskId, this.clock.now());
    if (!task) return 'skipped';
    const deadlineMs = this.options.deadlineMs[model.modality];
    const startedAt = task.startedAt ?? this.clock.now();
    const remaining = startedAt.getTime() + deadlineMs - this.clock.now().getTime();
    if (remaining <= 0) return this.fail(taskId, deadlineMessage(deadlineMs), log);

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlineExceeded()), remaining);
    const call: AdapterCall = { taskId, model, request, abortSignal: AbortSignal.any([shutdown, deadline.signal]) };
    try {
      const adapter = this.registry.adapterFor(model.id);
      const result = await this.runAdapter(adapter, task, call);
      const outputs = await this.storeFiles(taskId, result.files, call.abortSignal);
      const charge = actualCost(model, request, task.quotedMicro, result.usage);
      const ended = await this.uow.run(async (tx) => {
        const ok = await tx.tasks.markSuccess(taskId, {
          outputs,
          warnings: result.warnings ?? [],
          chargedMicro: charge,
          at: this.clock.now(),
        });
        if (!ok) return false;
        await tx.ledger.settle(taskId, charge, `${model.id} generation`);
        await checkBalanceAlerts(tx, task.userId);
        if (task.callbackUrl) await tx.jobs.enqueueCallback(taskId);
        return true;
      });
      log.info({ chargedMicro: charge, files: outputs.length }, ended ? 'task succeeded' : 'task had already ended');
      return ended ? 'success' : 'skipped';
    } catch (error) {
      if (shutdown.aborted) throw error;
      if (deadline.signal.aborted) return this.fail(taskId, deadlineMessage(deadlineMs), log);
      if (isUpstreamError(error) && error.isRetryable && !attempt.isLast) {
        log.warn({ err: error.message }, 'retryable upstream failure; the job will be retried');
        throw error;
      }
      log.warn({ err: (error as Error).message }, 'task failed');
      return this.fail(taskId, failureMessage(model, error), log);
    } finally {
      clearTimeout(timer);
    }
  }

  private async runAdapter(adapter: ProviderAdapter, task: TaskRecord, call: AdapterCall): Promise<GenerationResult> {
    if (!adapter.isLongRunning(call.model.id)) {
      if (!adapter.generate) throw new Error(`adapter ${adapter.providerId} has no generate()`);
      return adapter.generate(call);
    }
    if (!adapter.start || !adapter.status) throw new Error(`adapter ${adapter.providerId} has no start()/status()`);
    let handle = task.upstreamHandle;
    if (handle === null) {
      handle = await adapter.start(call);
      // Persisted before waiting: a restarted worker polls this handle instead of submitting again.
      await this.tasks.saveUpstreamHandle(task.id, handle);
    }
    const interval = adapter.statusPollIntervalMs ?? 2_000;
    for (;;) {
      const status = await adapter.status(handle, call);
      if (status.state === 'succeeded') return status.result;
      if (status.state === 'failed') throw new UpstreamError(status.message, { isRetryable: status.isRetryable ?? false });
      await sleep(interval, undefined, { signal: call.abortSignal });
    }
  }

  private async storeFiles(taskId: string, files: readonly GeneratedFile[], signal: AbortSignal): Promise<TaskOutputFile[]> {
    if (files.length === 0) throw new UpstreamError('The provider returned no output.');
    const outputs: TaskOutputFile[] = [];
    for (const [i, file] of files.entries()) {
      const { data, mediaType } = file.kind === 'bytes' ? file : await this.download(file.url, file.mediaType, signal);
      const key = `${taskId}/output-${i}.${extensionFor(mediaType)}`;
      await this.blobs.put(key, data, mediaType);
      outputs.push({ key, mediaType, bytes: data.byteLength });
    }
    return outputs;
  }

  private async download(url: string, mediaType: string | undefined, signal: AbortSignal): Promise<{ data: Uint8Array; mediaType: string }> {
    const res = await this.options.fetch(url, { signal });
    if (!res.ok) throw new UpstreamError(`Downloading the result failed with HTTP ${res.status}.`, { isRetryable: res.status >= 500, statusCode: res.status });
    const type = mediaType ?? res.headers.get('content-type')?.split(';')[0] ?? 'application/octet-stream';
    return { data: new Uint8Array(await res.arrayBuffer()), mediaType: type };
  }

  private async fail(taskId: string, message: string, log: Logger): Promise<ExecuteOutcome> {
    const ended = await this.failTask.execute(taskId, message);
    log.info({ message }, ended ? 'task failed' : 'task had already ended');
    return ended ? 'fail' : 'skipped';
  }
}

function deadlineMessage(ms: number): string {
  return `Generation did not finish within the deadline of ${Math.round(ms / 1000)} seconds; no credits were charged.`;
}

function failureMessage(model: ModelDescriptor, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  return `Generation failed at provider ${model.provider}: ${detail}`;
}
