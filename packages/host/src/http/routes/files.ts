import { GatewayError, isUuid, type BlobStore, type TaskStore } from '@gengate/core';
import { Router } from 'express';
import type { ResultUrlVerifier } from '../../storage/result-urls.js';
import { deleteTaskFiles } from '../../storage/delete-task-files.js';

const NAME = /^output-\d+\.[a-z0-9]+$/;

export interface FileRoutesOptions {
  readonly blobs: BlobStore;
  readonly tasks: TaskStore;
  /** Set when result URLs expire (RESULT_URL_TTL_SECONDS): every request must then carry a valid signature. */
  readonly verifier?: ResultUrlVerifier | null;
}

const notFound = () => new GatewayError('not_found', 'No such result file.');

/**
 * Result files: public capability URLs (the random task UUID is the secret part), served without an API
 * key so they can be handed to browsers, players and callback receivers. A file is served only while its
 * task is `success` and lists it; the files of a task that ended in `fail` (a worker may store them after
 * a cancel) are deleted when found. With expiring URLs, `expires` and `signature` are checked first:
 * 403 result_url_invalid, 410 result_url_expired.
 */
export function fileRoutes(opts: FileRoutesOptions): Router {
  const router = Router();
  router.get('/files/:task_id/:name', async (req, res) => {
    const { task_id: taskId, name } = req.params;
    if (!isUuid(taskId) || taskId !== taskId.toLowerCase() || !NAME.test(name)) throw notFound();
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
    const blob = await opts.blobs.get(key);
    if (!blob) throw notFound();
    // Text results are UTF-8; nosniff because these public URLs serve user-influenced content on the API's origin.
    const text = blob.mediaType.startsWith('text/') && !/;\s*charset=/i.test(blob.mediaType);
    res.setHeader('Content-Type', text ? `${blob.mediaType}; charset=utf-8` : blob.mediaType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Length', String(blob.data.byteLength));
    res.setHeader(
      'Cache-Control',
      expiresAt === null ? 'public, max-age=31536000, immutable' : `private, max-age=${Math.max(0, expiresAt - Math.floor(Date.now() / 1000))}`,
    );
    res.end(Buffer.from(blob.data.buffer, blob.data.byteOffset, blob.data.byteLength));
  });
  return router;
}
