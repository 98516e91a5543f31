/** Shapes of the organizations API (docs/organizations.md). */
import type { BudgetPeriod } from './types';

export type OrgRole = 'owner' | 'admin' | 'member';

export interface Organization {
  id: string;
  name: string;
  personal: boolean;
  /** The caller's role in it. */
  role: OrgRole;
  created_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  role: OrgRole;
  /** Credits per budget period; null: no limit. */
  spend_limit: number | null;
  budget_period: BudgetPeriod;
  /** Held + charged in the current period (absent if the gateway does not report it). */
  spent?: number;
  remaining?: number | null;
  resets_at?: string | null;
  joined_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: OrgRole;
  status: 'pending' | 'expired' | 'accepted' | 'revoked';
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** POST /api/v1/invitations/preview: what an invitation link offers. */
export interface InvitationPreview {
  organization: { id: string; name: string };
  email: string;
  role: OrgRole;
  invited_by: string;
  expires_at: string;
  status: Invitation['status'];
}
