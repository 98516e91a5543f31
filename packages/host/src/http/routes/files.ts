import { GatewayError, isUuid, type BlobStore } from '@gengate/core';
import { Router } from 'express';

const NAME = /^output-\d+\.[a-z0-9]+$/;

/**
 * Result files: public capability URLs (the random task UUID is the secret part), stable and immutable,
 * so they can be handed to browsers, players and callback receivers without an API key.
 */
export function fileRoutes(blobs: BlobStore): Router {
  const router = Router();
  router.get('/files/:task_id/:name', async (req, res) => {
    const { task_id: taskId, name } = req.params;
    const blob = isUuid(taskId) && taskId === taskId.toLowerCase() && NAME.test(name) ? await blobs.get(`${taskId}/${name}`) : null;
    if (!blob) throw new GatewayError('not_found', 'No such result file.');
    // Text results are UTF-8; nosniff because these public URLs serve user-influenced content on the API's origin.
    const text = blob.mediaType.startsWith('text/') && !/;\s*charset=/i.test(blob.mediaType);
    res.setHeader('Content-Type', text ? `${blob.mediaType}; charset=utf-8` : blob.mediaType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Length', String(blob.data.byteLength));
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.end(Buffer.from(blob.data.buffer, blob.data.byteOffset, blob.data.byteLength));
  });
  return router;
}
