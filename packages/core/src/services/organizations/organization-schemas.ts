import { z } from 'zod';
import { BUDGET_PERIODS } from '../../model/api-key.js';
import { MEMBER_ROLES } from '../../model/organization.js';
import { MICRO_PER_CREDIT } from '../../util/money.js';

/** Bodies of the organization endpoints (docs/organizations.md): strict objects, checked before anything changes. */
const name = z.string().trim().min(1).max(200);
const role = z.enum(MEMBER_ROLES);

export const organizationNameSchema = z.strictObject({ name });

/** Credits, zero or more, at most six decimals (1 micro-credit); null removes the limit. */
const spendLimit = z
  .number({ error: 'spend_limit must be a number (credits)' })
  .min(0, 'spend_limit must not be negative')
  .max(1_000_000_000)
  .refine((v) => Math.round(v * MICRO_PER_CREDIT) / MICRO_PER_CREDIT === v, 'spend_limit must have at most six decimals (1 micro-credit)');

export const updateMemberSchema = z.strictObject({
  role: role.optional(),
  spend_limit: spendLimit.nullable().optional(),
  budget_period: z.enum(BUDGET_PERIODS).optional(),
});
export type UpdateMemberInput = z.infer<typeof updateMemberSchema>;

export const inviteSchema = z.strictObject({
  email: z.email().max(254),
  role: role.optional(),
});

export const invitationTokenSchema = z.strictObject({ token: z.string().min(1).max(200) });
