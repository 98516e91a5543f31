import type { GengateUseCases } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

export function apiKeyRoutes({ keys }: Pick<GengateUseCases, 'keys'>): Router {
  const router = Router();
  router
    .route('/api-keys')
    .get(async (_req, res) => {
      res.json(await keys.list(authOf(res)));
    })
    .post(async (req, res) => {
      res.status(201).json(await keys.create(authOf(res), req.body ?? {}));
    })
    .all(methodNotAllowed('GET', 'POST'));
  router
    .route('/api-keys/:id')
    .put(async (req, res) => {
      res.json(await keys.update(authOf(res), req.params.id, req.body ?? {}));
    })
    .delete(async (req, res) => {
      res.json(await keys.revoke(authOf(res), req.params.id));
    })
    .all(methodNotAllowed('PUT', 'DELETE'));
  return router;
}
