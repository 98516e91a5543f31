import { GatewayError } from '@gengate/core';
import { isUuid } from '@gengate/core/internal';
import { Router } from 'express';
import type { CallbackRepository } from '../../callbacks/callback-repository.js';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

/** Callback signing secret (read, rotate) and a task's delivery attempts: beyond the interface document. */
export function callbackRoutes(callbacks: CallbackRepository): Router {
  const router = Router();
  router
    .route('/webhook-secret')
    .get(async (_req, res) => {
      res.json({ secret: await callbacks.secretFor(authOf(res).userId) });
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/webhook-secret/rotate')
    .post(async (_req, res) => {
      res.json({ secret: await callbacks.rotate(authOf(res).userId) });
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/run/tasks/:task_id/callbacks')
    .get(async (req, res) => {
      const id = req.params.task_id;
      const attempts = isUuid(id) ? await callbacks.attemptsFor(id.toLowerCase(), authOf(res).userId) : null;
      if (!attempts) throw new GatewayError('task_not_found', `No task with id '${id}'.`, { param: 'task_id' });
      res.json({ data: attempts });
    })
    .all(methodNotAllowed('GET'));
  return router;
}
