import { setTimeout as sleep } from 'node:timers/promises';
import { isUpstreamError, UpstreamError } from '../errors/upstream-error.js';
import { upstreamErrorFromNetwork } from '../errors/upstream-response.js';
import type { Modality } from '../model/modality.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskOutputFile, TaskRecord } from '../model/task.js';
import type { PriceBook } from '../pricing/price-book.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { GeneratedFile, GenerationResult } from '../ports/provider-adapter.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import { extensionFor } from '../util/media-type.js';
import { MICRO_PER_CREDIT, CREDITS_PER_USD } from '../model/pricing.js';
import type { ExecuteTaskOptions } from './execution-options.js';
import { checkedResult } from './result-limits.js';

/** Micro-credits per micro-USD: 1 USD = 100 credits = 100,000,000 micro-credits. */
const MICRO_CREDITS_PER_MICRO_USD = (CREDITS_PER_USD * MICRO_PER_CREDIT) / 1_000_000;

/** A fresh name for one attempt at storing a task's results: 12 hex digits (48 random bits). */
function attemptName(): string {
  return crypto.randomUUID().replaceAll('-', '').slice(0, 12);
}

/** One stored output, with its bytes when it is kept with the task (inline) rather than in the blob store. */
interface StoredOutput {
  readonly file: TaskOutputFile;
  readonly body: Uint8Array | null;
}

/**
 * Stores a successful generation's files in the gateway's blob store (a small one, at most
 * `inlineResultMaxBytes`, travels with the success instead and is written by the statement that commits
 * it: it exists exactly when the success does), prices what was produced (never
 * above the hold) and has the TaskCompletion commit the success. Two attempts may race to complete one
 * task (a status check downloading when the provider's webhook lands): each stores its files under names
 * of its own (`<task_id>/output-<n>-<attempt>.<ext>`), the completion is applied once (the task row moves
 * from generating to success once), and a losing attempt deletes only the files it wrote, never the
 * winner's. A task that ended meanwhile (cancelled) is not charged.
 */
export class TaskResultWriter {
  constructor(
    private readonly completion: TaskCompletion,
    private readonly blobs: BlobStore,
    private readonly prices: PriceBook,
    private readonly options: Pick<ExecuteTaskOptions, 'fetch' | 'scheduling' | 'maxResultBytes' | 'inlineResultMaxBytes'>,
  ) {}

  async commitSuccess(
    task: TaskRecord,
    model: ModelDescriptor,
    request: NormalizedRequest,
    result: GenerationResult,
    signal: AbortSignal,
  ): Promise<{ ended: boolean; chargedMicro: number; files: number }> {
    const stored = await this.storeFiles(task.id, attemptName(), model.modality, result.files, signal);
    const outputs = stored.map((o) => o.file);
    const inline = stored.some((o) => o.body !== null);
    const usage = result.usage ?? {};
    const charge = this.prices.charge(model, request, { costMicro: task.quotedCostMicro, chargeMicro: task.quotedMicro }, usage);
    const ended = await this.completion.succeed({
      task,
      success: {
        outputs,
        ...(inline ? { outputBodies: stored.map((o) => o.body) } : {}),
        // The warnings a long-running start stored on the task, then the result's own.
        warnings: [...task.warnings, ...(result.warnings ?? [])],
        chargedMicro: charge.chargeMicro,
        costMicro: charge.costMicro,
        reportedCostMicro: result.reportedCostMicroUsd === undefined ? null : Math.round(result.reportedCostMicroUsd * MICRO_CREDITS_PER_MICRO_USD),
        usage,
        metadata: result.metadata ?? {},
        at: new Date(),
      },
      chargeDescription: `${model.id} generation`,
      maxRunning: this.options.scheduling.maxRunningPerUser[model.modality],
    });
    // Lost the race (another attempt completed the task, or it was cancelled): remove what this attempt wrote.
    if (!ended) await this.blobs.delete(storedKeys(outputs));
    return { ended, chargedMicro: charge.chargeMicro, files: outputs.length };
  }

  /** Stores the files under this attempt's names; when one fails, the ones already stored are deleted. */
  private async storeFiles(taskId: string, attempt: string, modality: Modality, files: readonly GeneratedFile[], signal: AbortSignal): Promise<StoredOutput[]> {
    const outputs: StoredOutput[] = [];
    try {
      for (const [i, file] of files.entries()) outputs.push(await this.storeFile(`${taskId}/output-${i}-${attempt}`, modality, file, signal));
    } catch (err) {
      await this.blobs.delete(storedKeys(outputs.map((o) => o.file))).catch(() => undefined);
      throw err;
    }
    return outputs;
  }

  private async storeFile(name: string, modality: Modality, file: GeneratedFile, signal: AbortSignal): Promise<StoredOutput> {
    // An adapter's bytes stay whole (checked at once, written by the store in one call); a URL is streamed.
    const source = file.kind === 'bytes' ? { body: file.data, type: file.mediaType } : await this.download(file.url, file.mediaType ?? null, signal);
    const max = this.options.maxResultBytes[modality];
    if ('declaredBytes' in source && source.declaredBytes !== undefined && source.declaredBytes > max) {
      // Refused before reading a byte of it.
      await source.body[Symbol.asyncIterator]().return?.();
      throw new UpstreamError(`the result is larger than this gateway's limit of ${max} bytes for ${modality} files`, { kind: 'bad_output' });
    }
    const checked = await checkedResult(source.body, source.type, modality, max);
    signal.throwIfAborted();
    const key = `${name}.${extensionFor(checked.mediaType)}`;
    // An adapter's small answer (a chat reply) is kept with the task; a download stays a stream to the store
    // (its Content-Length is the upstream's word: reading it whole on that word could hold a large body).
    const body = checked.body;
    if (body instanceof Uint8Array && body.byteLength <= this.options.inlineResultMaxBytes) {
      return { file: { key, mediaType: checked.mediaType, bytes: body.byteLength, inline: true }, body };
    }
    const { bytes } = await this.blobs.put(key, body, checked.mediaType);
    return { file: { key, mediaType: checked.mediaType, bytes }, body: null };
  }

  /**
   * Opens a result URL as a stream. Transient failures (5xx, network) are tried again three times within
   * the task's signal; a 4xx is the upstream's answer and final.
   */
  private async download(url: string, declared: string | null, signal: AbortSignal): Promise<{ body: AsyncIterable<Uint8Array>; type: string | null; declaredBytes?: number }> {
    let last: unknown = null;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) await sleep(500 * 2 ** (attempt - 1), undefined, { signal });
      let res: Response;
      try {
        res = await this.options.fetch(url, { signal, redirect: 'follow' });
      } catch (err) {
        signal.throwIfAborted();
        if (isUpstreamError(err) && !err.isRetryable) throw err;
        last = upstreamErrorFromNetwork(err);
        continue;
      }
      if (res.ok && res.body) {
        const length = Number(res.headers.get('content-length') ?? NaN);
        return { body: res.body, type: declared ?? res.headers.get('content-type'), ...(Number.isFinite(length) ? { declaredBytes: length } : {}) };
      }
      await res.body?.cancel();
      last = new UpstreamError(`downloading the result failed with HTTP ${res.status}`, { kind: res.status >= 500 || res.status === 429 ? 'server' : 'bad_output', statusCode: res.status });
      if (res.status < 500 && res.status !== 429) break;
    }
    throw last;
  }
}

/** The blob-store keys of these outputs (an inline one has no file to delete). */
function storedKeys(outputs: readonly TaskOutputFile[]): string[] {
  return outputs.filter((o) => !o.inline).map((o) => o.key);
}
