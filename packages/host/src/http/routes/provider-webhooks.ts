import type { GengateUseCases } from '@gengate/core';
import express, { Router } from 'express';
import { methodNotAllowed } from '../middleware/error-handler.js';

/**
 * POST /providers/{provider}/webhook?task=<id> (no API key: the provider signs it). The raw body is kept
 * for the signature check; see ReceiveWebhook for what a webhook may change.
 */
export function providerWebhookRoutes({ receiveWebhook }: Pick<GengateUseCases, 'receiveWebhook'>): Router {
  const router = Router();
  router
    .route('/providers/:provider/webhook')
    .post(express.raw({ type: () => true, limit: 4 * 1_048_576 }), async (req, res) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const body = Buffer.isBuffer(req.body) ? new Uint8Array(req.body.buffer, req.body.byteOffset, req.body.byteLength) : new Uint8Array();
      const task = typeof req.query['task'] === 'string' ? req.query['task'] : null;
      const url = `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`;
      res.json(await receiveWebhook.execute(req.params.provider, task, { headers, rawBody: body, url }));
    })
    .all(methodNotAllowed('POST'));
  return router;
}
