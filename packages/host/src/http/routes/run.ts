import { GatewayError, type GengateUseCases } from '@gengate/core';
import { Router, type RequestHandler } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';
import { logAnsweredAtDebug } from '../middleware/request-context.js';
import { sendJson } from '../send-json.js';

/**
 * GET /run/tasks/{task_id}, the poll: the request a client repeats until its task ends. createGengateRouter
 * mounts it ahead of the other routes, behind its own authentication and rate limit (the same ones), so a
 * poll does not walk every other router; runRoutes keeps the path's 405 for the other methods. Its
 * end-of-request line is at debug when it succeeds (logAnsweredAtDebug).
 */
export function pollRoute({ getTask }: Pick<GengateUseCases, 'getTask'>): RequestHandler {
  return async (req, res) => {
    const id = req.params['task_id'];
    logAnsweredAtDebug(res);
    sendJson(res, await getTask.execute(authOf(res), typeof id === 'string' ? id : ''));
  };
}

export function runRoutes({ listTasks, cancelTask }: Pick<GengateUseCases, 'listTasks' | 'cancelTask'>): Router {
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
  // GET is pollRoute, mounted first (createGengateRouter).
  router.route('/run/tasks/:task_id').all(methodNotAllowed('GET'));
  // POST is submitRoute, mounted first (createGengateRouter).
  router.route('/run/:model_id').all(methodNotAllowed('POST'));
  return router;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * POST /run/{model_id}, the submission. createGengateRouter mounts it ahead of the other routes, behind
 * the same authentication, rate limit and body parsing, so a submission does not walk every other router;
 * runRoutes keeps the path's 405 for the other methods. `POST /run/tasks` is not a submission (its 405
 * is runRoutes'): `isSubmission` passes it on.
 */
export function submitRoute({ submitRun }: Pick<GengateUseCases, 'submitRun'>): RequestHandler {
  return async (req, res) => {
    const key = req.headers['idempotency-key'];
    if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
      throw new GatewayError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { param: 'Idempotency-Key' });
    }
    const options = key === undefined ? {} : { idempotencyKey: key };
    const modelId = req.params['model_id'];
    sendJson(res, await submitRun.execute(authOf(res), typeof modelId === 'string' ? modelId : '', req.body ?? {}, options));
  };
}

/** Passes `POST /run/tasks` (runRoutes' 405) on to the routes after the submission's. */
export const isSubmission: RequestHandler = (req, _res, next) => {
  next(req.params['model_id'] === 'tasks' ? 'route' : undefined);
};
