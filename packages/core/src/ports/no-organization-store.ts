import { GatewayError } from '../errors/gateway-error.js';
import type { OrganizationStore } from './organization-store.js';

const unavailable = (): Promise<never> =>
  Promise.reject(new GatewayError('service_unavailable', 'Organizations are not available: these stores keep none (give createGengate an `organizations` store).'));

/** The default OrganizationStore when a configuration gives none: every call answers 503. */
export const NO_ORGANIZATION_STORE: OrganizationStore = {
  create: unavailable,
  findById: unavailable,
  rename: unavailable,
  listForUser: unavailable,
  membership: unavailable,
  listMembers: unavailable,
  updateMember: unavailable,
  removeMember: unavailable,
  createInvitation: unavailable,
  listInvitations: unavailable,
  findInvitationByTokenHash: unavailable,
  revokeInvitation: unavailable,
  acceptInvitation: unavailable,
};
