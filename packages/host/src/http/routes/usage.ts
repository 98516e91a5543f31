import type { GengateUseCases } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';
import { usageCsv, wantsCsv } from '../usage/usage-csv.js';

/** GET /usage: the caller's usage over the rollups, as JSON or CSV. */
export function usageRoutes({ usage }: Pick<GengateUseCases, 'usage'>): Router {
  const router = Router();
  router
    .route('/usage')
    .get(async (req, res) => {
      const { report, format } = await usage.forCaller(authOf(res), req.query);
      if (wantsCsv(format, req.get('accept'))) {
        res.type('text/csv; charset=utf-8').send(usageCsv(report));
        return;
      }
      res.json(report);
    })
    .all(methodNotAllowed('GET'));
  return router;
}
