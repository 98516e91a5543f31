import type { GengateUseCases } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

/**
 * /invitations: what an invitation link offers, and accepting it (docs/organizations.md). The token
 * travels in the JSON body, never in a URL the gateway logs; the caller's e-mail must be the invited one.
 */
export function invitationRoutes({ organizations }: Pick<GengateUseCases, 'organizations'>): Router {
  const router = Router();
  router
    .route('/invitations/preview')
    .post(async (req, res) => {
      res.json(await organizations.previewInvitation(authOf(res), req.body ?? {}));
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/invitations/accept')
    .post(async (req, res) => {
      res.json(await organizations.acceptInvitation(authOf(res), req.body ?? {}));
    })
    .all(methodNotAllowed('POST'));
  return router;
}
