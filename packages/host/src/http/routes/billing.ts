import type { GengateUseCases } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

export function billingRoutes({ billing }: Pick<GengateUseCases, 'billing'>): Router {
  const router = Router();
  router
    .route('/billing/balance')
    .get(async (_req, res) => {
      res.json(await billing.balance(authOf(res)));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/billing/topup')
    .post(async (req, res) => {
      res.json(await billing.topup(authOf(res), req.body ?? {}));
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/billing/transactions')
    .get(async (req, res) => {
      res.json(await billing.transactions(authOf(res), req.query));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/billing/alerts')
    .get(async (_req, res) => {
      res.json(await billing.listAlerts(authOf(res)));
    })
    .post(async (req, res) => {
      res.status(201).json(await billing.createAlert(authOf(res), req.body ?? {}));
    })
    .all(methodNotAllowed('GET', 'POST'));
  router
    .route('/billing/alerts/:id')
    .delete(async (req, res) => {
      res.json(await billing.deleteAlert(authOf(res), req.params.id));
    })
    .all(methodNotAllowed('DELETE'));
  return router;
}
