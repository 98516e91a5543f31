import type { RequestHandler, Response, Router } from 'express';

/** A start-up gate: requests pass at once when it is open, else they wait for it. */
export interface FrontGate {
  /** Whether a request passes at once. */
  readonly open: () => boolean;
  /** Waits until it opens: true to go on, false when the request was answered (a 503). */
  readonly wait: (res: Response) => Promise<boolean>;
}

interface FrontSlot {
  gate: FrontGate | null;
}

/** The slot of each router made by createGengateRouter. */
const slots = new WeakMap<Router, FrontSlot>();

/**
 * The first middleware of `router`: `enter` (the request context), behind a gate setFrontGate may put
 * there once, after the router is made. createGengateHost puts its start-up gate there instead of in a
 * router of its own in front of this one, and `enter` does in this one layer what were layers of their
 * own: each Express router level costs its own `next` and restore closures, and each middleware layer its
 * parameter processing (together about 2.4 KiB allocated per poll; measured in-process with V8's
 * GCProfiler, an empty `router.use` layer about 0.8 KiB). An empty slot is one null check.
 */
export function frontWithSlot(router: Router, enter: RequestHandler): RequestHandler {
  const slot: FrontSlot = { gate: null };
  slots.set(router, slot);
  return (req, res, next) => {
    const gate = slot.gate;
    if (gate === null || gate.open()) return enter(req, res, next);
    return gate.wait(res).then((go) => (go ? enter(req, res, next) : undefined));
  };
}

/**
 * Puts `gate` before everything else in a router made by createGengateRouter (before its request
 * context); false, and nothing changed, for any other router or one whose slot is taken: the caller then
 * mounts the gate in a router of its own in front.
 */
export function setFrontGate(router: Router, gate: FrontGate): boolean {
  const slot = slots.get(router);
  if (!slot || slot.gate !== null) return false;
  slot.gate = gate;
  return true;
}
