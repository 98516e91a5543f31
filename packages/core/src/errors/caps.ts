import { MAX_KEYS_PER_USER } from '../model/api-key.js';
import { MAX_ALERTS_PER_USER, MAX_PENDING_TOPUPS_PER_USER } from '../model/billing.js';
import { GatewayError } from './gateway-error.js';

/** The per-user caps every store enforces on insert (PostgreSQL: triggers of migration 005). */
export type UserCap = 'api_keys' | 'balance_alerts' | 'pending_topups';

export const USER_CAPS: Readonly<Record<UserCap, number>> = {
  api_keys: MAX_KEYS_PER_USER,
  balance_alerts: MAX_ALERTS_PER_USER,
  pending_topups: MAX_PENDING_TOPUPS_PER_USER,
};

/** The 422 a client gets when a cap is reached. */
export function capExceeded(cap: UserCap): GatewayError {
  switch (cap) {
    case 'api_keys':
      return new GatewayError('limit_exceeded', `A user can have at most ${MAX_KEYS_PER_USER} active API keys; delete one first.`);
    case 'balance_alerts':
      return new GatewayError('limit_exceeded', `A user can have at most ${MAX_ALERTS_PER_USER} balance alerts.`);
    case 'pending_topups':
      return new GatewayError(
        'limit_exceeded',
        `A user can have at most ${MAX_PENDING_TOPUPS_PER_USER} pending top-ups; pay or let one expire before starting another.`,
      );
  }
}
