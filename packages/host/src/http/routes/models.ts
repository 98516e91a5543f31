import type { GengateUseCases } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

export function modelRoutes({ catalog, quoteRun }: Pick<GengateUseCases, 'catalog' | 'quoteRun'>): Router {
  const router = Router();
  router
    .route('/models')
    .get((req, res) => {
      res.json(catalog.list(req.query));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/models/popular')
    .get((_req, res) => {
      res.json(catalog.popular());
    })
    .all(methodNotAllowed('GET'));
  // gengate extension: what a run with this body would hold, validated exactly like the run; nothing is held.
  router
    .route('/models/:model_id/quote')
    .post(async (req, res) => {
      res.json(await quoteRun.execute(authOf(res), req.params.model_id, req.body ?? {}));
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/models/:model_id/pricing')
    .get((req, res) => {
      res.json(catalog.pricing(req.params.model_id));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/models/:model_id')
    .get((req, res) => {
      res.json(catalog.get(req.params.model_id));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/pricing')
    .get((_req, res) => {
      res.json(catalog.allPricing());
    })
    .all(methodNotAllowed('GET'));
  return router;
}
