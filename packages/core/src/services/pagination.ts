import { z } from 'zod';

export const MAX_PER_PAGE = 100;

/** page (1-indexed, default 1) and per_page (default 20, max 100), as query strings or numbers. */
export const pageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(20),
});
