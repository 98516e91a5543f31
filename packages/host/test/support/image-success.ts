import type { TaskSuccess } from '@gengate/core/internal';

/** The sandbox image model the task-end tests submit to (its hold is 2 credits). */
export const IMAGE = 'sandbox.pixel-image';
/** What those tests charge on success: 1.5 credits of the 2-credit hold. */
export const CHARGE = 1_500_000;

/** A worker's success for one sandbox image: one 3-byte PNG, charged {@link CHARGE}. */
export const imageSuccess = (): TaskSuccess => ({
  outputs: [{ key: 'k/output-0.png', mediaType: 'image/png', bytes: 3 }],
  warnings: [],
  chargedMicro: CHARGE,
  costMicro: 15_000,
  reportedCostMicro: null,
  usage: { images: 1 },
  metadata: {},
  at: new Date(),
});
