import { Router } from 'express';

/**
 * The health endpoints every role serves (`GET /healthz`: the process is alive). The one place to add
 * readiness and metrics: the `worker` role serves this router and nothing else.
 */
export function createHealthRouter(): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  return router;
}
