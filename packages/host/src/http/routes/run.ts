import { GatewayError, type GengateUseCases } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

export function runRoutes({ listTasks, cancelTask, getTask, submitRun }: Pick<GengateUseCases, 'listTasks' | 'cancelTask' | 'getTask' | 'submitRun'>): Router {
  const router = Router();
  // gengate extension: the caller's tasks, newest first (paged; status, model and modality filters).
  router
    .route('/run/tasks')
    .get(async (req, res) => {
      res.json(await listTasks.execute(authOf(res), req.query));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/run/tasks/:task_id/cancel')
    .post(async (req, res) => {
      res.json(await cancelTask.execute(authOf(res), req.params.task_id));
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/run/tasks/:task_id')
    .get(async (req, res) => {
      res.json(await getTask.execute(authOf(res), req.params.task_id));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/run/:model_id')
    .post(async (req, res) => {
      const key = req.get('Idempotency-Key');
      if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
        throw new GatewayError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { param: 'Idempotency-Key' });
      }
      const options = key === undefined ? {} : { idempotencyKey: key };
      res.json(await submitRun.execute(authOf(res), req.params.model_id, req.body ?? {}, options));
    })
    .all(methodNotAllowed('POST'));
  return router;
}
