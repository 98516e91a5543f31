import { GatewayError, type GengateUseCases } from '@gengate/core';
import { isUuid } from '@gengate/core/internal';
import { Router } from 'express';
import type { CallbackRepository } from '../../callbacks/callback-repository.js';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

const OWNER: readonly ['owner'] = ['owner'];

/**
 * Callback signing secret (read, rotate: the organization's owners) and a task's delivery attempts (whoever
 * may see the task): beyond the interface document.
 */
export function callbackRoutes(callbacks: CallbackRepository, { roles, getTask }: Pick<GengateUseCases, 'roles' | 'getTask'>): Router {
  const router = Router();
  router
    .route('/webhook-secret')
    .get(async (_req, res) => {
      const auth = authOf(res);
      await roles.require(auth, OWNER);
      res.json({ secret: await callbacks.secretFor(auth.userId) });
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/webhook-secret/rotate')
    .post(async (_req, res) => {
      const auth = authOf(res);
      await roles.require(auth, OWNER);
      res.json({ secret: await callbacks.rotate(auth.userId) });
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/run/tasks/:task_id/callbacks')
    .get(async (req, res) => {
      const id = req.params.task_id;
      const auth = authOf(res);
      // A caller who may not see the task (another member's, for a `member`) gets the 404 of a missing one.
      if (isUuid(id) && auth.memberId !== undefined && auth.memberId !== auth.userId) await getTask.record(auth, id);
      const attempts = isUuid(id) ? await callbacks.attemptsFor(id.toLowerCase(), auth.userId) : null;
      if (!attempts) throw new GatewayError('task_not_found', `No task with id '${id}'.`, { param: 'task_id' });
      res.json({ data: attempts });
    })
    .all(methodNotAllowed('GET'));
  return router;
}
