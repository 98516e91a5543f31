/** The gate's answer: open, or closed with how long a client should wait before trying again. */
export type GateState =
  | { readonly open: true }
  | { readonly open: false; readonly retryAfterSeconds: number; readonly waiting: number; readonly limit: number };

/**
 * Back-pressure before a submission writes anything. Called on every submission, so it must answer from
 * memory (the host keeps a count of waiting generation jobs refreshed periodically, never per request).
 */
export interface SubmissionGate {
  state(): GateState;
}

export const OPEN_GATE: SubmissionGate = { state: () => ({ open: true }) };
