import type { Gengate } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

export function apiKeyRoutes(gengate: Gengate): Router {
  const router = Router();
  router
    .route('/api-keys')
    .get(async (_req, res) => {
      res.json(await gengate.keys.list(authOf(res)));
    })
    .post(async (req, res) => {
      res.status(201).json(await gengate.keys.create(authOf(res), req.body ?? {}));
    })
    .all(methodNotAllowed('GET', 'POST'));
  router
    .route('/api-keys/:id')
    .put(async (req, res) => {
      res.json(await gengate.keys.update(authOf(res), req.params.id, req.body ?? {}));
    })
    .delete(async (req, res) => {
      res.json(await gengate.keys.revoke(authOf(res), req.params.id));
    })
    .all(methodNotAllowed('PUT', 'DELETE'));
  return router;
}
