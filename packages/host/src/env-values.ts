import { z } from 'zod';

/** An environment flag: `true`/`1` or `false`/`0`. */
export const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** An environment integer within `min..max`. */
export const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be an integer ${min}..${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be an integer ${min}..${max}`);
