import { z } from 'zod';
import { bool, int } from '../env-values.js';


/** The dashboard's settings (docs/configuration.md), merged into the server's environment schema. */
export const DASHBOARD_ENV = {
  DASHBOARD_ENABLED: bool.default(true),
  DASHBOARD_OPEN_SIGNUP: bool.default(false),
  DASHBOARD_SIGNUP_CREDITS: z
    .string()
    .regex(/^\d+(\.\d{1,6})?$/, 'must be a number of credits >= 0 (at most 6 decimals)')
    .transform(Number)
    .refine((n) => n <= 1_000_000_000, 'must be at most 1000000000')
    .default(0),
  DASHBOARD_LINK_TTL_MINUTES: int(1, 1_440).default(15),
  DASHBOARD_SESSION_TTL_HOURS: int(1, 8_760).default(168),
};

export interface DashboardSettings {
  readonly enabled: boolean;
  readonly openSignup: boolean;
  readonly signupCredits: number;
  readonly linkTtlMs: number;
  readonly sessionTtlMs: number;
}

type Parsed = { [K in keyof typeof DASHBOARD_ENV]: z.output<(typeof DASHBOARD_ENV)[K]> };

export function dashboardSettings(c: Parsed): DashboardSettings {
  return {
    enabled: c.DASHBOARD_ENABLED,
    openSignup: c.DASHBOARD_OPEN_SIGNUP,
    signupCredits: c.DASHBOARD_SIGNUP_CREDITS,
    linkTtlMs: c.DASHBOARD_LINK_TTL_MINUTES * 60_000,
    sessionTtlMs: c.DASHBOARD_SESSION_TTL_HOURS * 3_600_000,
  };
}
