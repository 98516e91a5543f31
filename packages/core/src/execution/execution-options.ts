import type { Modality } from '../model/modality.js';

/** The settings type lives in `ports/settings.ts` (every injectable may name it); re-exported here with its defaults. */
export type { ExecuteTaskOptions } from '../ports/settings.js';

export const DEFAULT_DEADLINES_MS: Readonly<Record<Modality, number>> = {
  chat: 120_000,
  image: 300_000,
  video: 900_000,
};
