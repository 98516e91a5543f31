import { GatewayError, isUuid, type BlobStore, type TaskStore } from '@gengate/core';
import { Router } from 'express';
import type { ResultUrlVerifier } from '../../storage/result-urls.js';
import { BLOB_NAME } from '../../storage/blob-keys.js';
import { deleteTaskFiles } from '../../storage/delete-task-files.js';
import { redirectToStore, STREAM_DELIVERY, streamFile, type FileDeliveryOptions } from './files-delivery.js';

export interface FileRoutesOptions {
  readonly blobs: BlobStore;
  readonly tasks: TaskStore;
  /** Set when result URLs expire (RESULT_URL_TTL_SECONDS): every request must then carry a valid signature. */
  readonly verifier?: ResultUrlVerifier | null;
  /** Stream through the gateway (default) or redirect to a presigned URL (FILES_DELIVERY=redirect, S3 only). */
  readonly delivery?: FileDeliveryOptions;
}

const notFound = () => new GatewayError('not_found', 'No such result file.');

/**
 * Result files: public capability URLs (the random task UUID is the secret part), served without an API
 * key so they can be handed to browsers, players and callback receivers. A file is served only while its
 * task is `success` and lists it; the files of a task that ended in `fail` (a worker may store them after
 * a cancel) are deleted when found. With expiring URLs, `expires` and `signature` are checked first:
 * 403 result_url_invalid, 410 result_url_expired. Every check passes before a byte is streamed or a
 * presigned URL is handed out. `Range: bytes=a-b` is honoured (206, 416), see files-delivery.ts.
 */
export function fileRoutes(opts: FileRoutesOptions): Router {
  const router = Router();
  const delivery = opts.delivery ?? STREAM_DELIVERY;
  router.get('/files/:task_id/:name', async (req, res) => {
    const { task_id: taskId, name } = req.params;
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
    if (!task) throw notFound();
    if (task.status !== 'success') {
      if (task.status === 'fail') await deleteTaskFiles(opts.blobs, taskId);
      throw notFound();
    }
    if (!task.outputs.some((o) => o.key === key)) throw notFound();
    if (await redirectToStore(res, opts.blobs, key, delivery, expiresAt)) return;
    const cacheControl =
      expiresAt === null ? 'public, max-age=31536000, immutable' : `private, max-age=${Math.max(0, expiresAt - Math.floor(Date.now() / 1000))}`;
    await streamFile(req, res, opts.blobs, key, cacheControl);
  });
  return router;
}
