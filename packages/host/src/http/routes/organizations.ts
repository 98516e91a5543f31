import type { GengateUseCases } from '@gengate/core';
import { Router } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';

/**
 * /organizations: the caller's organizations, their members and invitations (docs/organizations.md). The
 * use case checks the caller's role in the organization of the path (an API key: its own organization only,
 * any other id is a 404 organization_not_found) and validates every body.
 */
export function organizationRoutes({ organizations }: Pick<GengateUseCases, 'organizations'>): Router {
  const router = Router();
  router
    .route('/organizations')
    .get(async (_req, res) => {
      res.json(await organizations.list(authOf(res)));
    })
    .post(async (req, res) => {
      res.status(201).json(await organizations.create(authOf(res), req.body ?? {}));
    })
    .all(methodNotAllowed('GET', 'POST'));
  router
    .route('/organizations/:organization_id')
    .get(async (req, res) => {
      res.json(await organizations.get(authOf(res), req.params.organization_id));
    })
    .patch(async (req, res) => {
      res.json(await organizations.rename(authOf(res), req.params.organization_id, req.body ?? {}));
    })
    .all(methodNotAllowed('GET', 'PATCH'));
  router
    .route('/organizations/:organization_id/members')
    .get(async (req, res) => {
      res.json(await organizations.listMembers(authOf(res), req.params.organization_id));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/organizations/:organization_id/members/:user_id')
    .patch(async (req, res) => {
      res.json(await organizations.updateMember(authOf(res), req.params.organization_id, req.params.user_id, req.body ?? {}));
    })
    .delete(async (req, res) => {
      await organizations.removeMember(authOf(res), req.params.organization_id, req.params.user_id);
      res.status(204).end();
    })
    .all(methodNotAllowed('PATCH', 'DELETE'));
  router
    .route('/organizations/:organization_id/invitations')
    .get(async (req, res) => {
      res.json(await organizations.listInvitations(authOf(res), req.params.organization_id));
    })
    .post(async (req, res) => {
      res.status(201).json(await organizations.invite(authOf(res), req.params.organization_id, req.body ?? {}));
    })
    .all(methodNotAllowed('GET', 'POST'));
  router
    .route('/organizations/:organization_id/invitations/:invitation_id')
    .delete(async (req, res) => {
      await organizations.revokeInvitation(authOf(res), req.params.organization_id, req.params.invitation_id);
      res.status(204).end();
    })
    .all(methodNotAllowed('DELETE'));
  return router;
}
