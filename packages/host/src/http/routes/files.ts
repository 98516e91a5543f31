import { GatewayError, type BlobStore, type TaskRecord, type TaskStore } from '@gengate/core';
import { isUuid } from '@gengate/core/internal';
import { Router, type Request } from 'express';
import type { RequestAuth } from '../middleware/authenticate.js';
import type { ResultUrlVerifier } from '../../storage/result-urls.js';
import { BLOB_NAME } from '../../storage/blob-keys.js';
import { deleteTaskFiles } from '../../storage/delete-task-files.js';
import { outputSource } from '../../storage/output-source.js';
import { redirectToStore, STREAM_DELIVERY, streamFile, type FileDeliveryOptions } from './files-delivery.js';

export interface FileRoutesOptions {
  readonly blobs: BlobStore;
  readonly tasks: TaskStore;
  /** Set when result URLs expire (RESULT_URL_TTL_SECONDS): every request must then carry a valid signature. */
  readonly verifier?: ResultUrlVerifier | null;
  /**
   * Set in owner mode: resolves the caller (401 when there is none) and only the task's owner gets the
   * file (another user's is a 404). No signature is needed then.
   */
  readonly caller?: (req: Request) => Promise<RequestAuth>;
  /**
   * In owner mode, whether the caller may see its organization's task (GetTask.visible: a `member` only
   * their own); default: every task of the caller's organization.
   */
  readonly visible?: (caller: RequestAuth, task: TaskRecord) => Promise<boolean>;
  /** Milliseconds since the epoch; default Date.now. */
  readonly now?: () => number;
  /** Stream through the gateway (default) or redirect to a presigned URL (FILES_DELIVERY=redirect, S3 only). */
  readonly delivery?: FileDeliveryOptions;
}

const notFound = () => new GatewayError('not_found', 'No such result file.');

/**
 * Result files: capability URLs, signed and expiring by default (the host's RESULT_URL_TTL_SECONDS),
 * served without an API key so they can be handed to browsers, players and callback receivers; or, in
 * owner mode, to the task's owner only, authenticated as on every other route. A file is served only while its
 * task is `success` and lists it; the files of a task that ended in `fail` (a worker may store them after
 * a cancel) are deleted when found. With expiring URLs, `expires` and `signature` are checked first:
 * 403 result_url_invalid, 410 result_url_expired. Every check passes before a byte is streamed or a
 * presigned URL is handed out. `Range: bytes=a-b` is honoured (206, 416), see files-delivery.ts.
 */
export function fileRoutes(opts: FileRoutesOptions): Router {
  const router = Router();
  const delivery = opts.delivery ?? STREAM_DELIVERY;
  const now = opts.now ?? Date.now;
  router.get('/files/:task_id/:name', async (req, res) => {
    const { task_id: taskId, name } = req.params;
    const caller = opts.caller ? await opts.caller(req) : null;
    if (!isUuid(taskId) || taskId !== taskId.toLowerCase() || !BLOB_NAME.test(name)) throw notFound();
    const key = `${taskId}/${name}`;
    let expiresAt: number | null = null;
    if (opts.verifier) {
      const check = opts.verifier.verify(key, req.query as { expires?: unknown; signature?: unknown });
      if (!check.ok && check.reason === 'expired') throw new GatewayError('result_url_expired', 'This result URL has expired; fetch the task again for a fresh one.');
      if (!check.ok) throw new GatewayError('result_url_invalid', 'This result URL lacks a valid signature; use the URL exactly as the task returned it.');
      expiresAt = check.expiresAt;
    }
    const task = await opts.tasks.findById(taskId);
    if (!task || (caller && (task.userId !== caller.userId || (opts.visible && !(await opts.visible(caller, task)))))) throw notFound();
    if (task.status !== 'success') {
      if (task.status === 'fail') await deleteTaskFiles(opts.blobs, taskId);
      throw notFound();
    }
    const output = task.outputs.find((o) => o.key === key);
    if (!output) throw notFound();
    // An inline output (kept with the task) has no object to presign: it is served from the row just read.
    if (!output.inline && (await redirectToStore(res, opts.blobs, key, output.mediaType, delivery, expiresAt, now()))) return;
    const cacheControl = caller
      ? 'private, no-cache'
      : expiresAt === null
        ? 'public, max-age=31536000, immutable'
        : `private, max-age=${Math.max(0, expiresAt - Math.floor(now() / 1000))}`;
    await streamFile(req, res, outputSource(opts.blobs, task, output), key, cacheControl);
  });
  return router;
}
