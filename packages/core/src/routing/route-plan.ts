import type { ModelDescriptor } from '../model/model.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import type { ModelRoutingPolicy } from '../model/routing.js';
import type { PriceQuote } from '../pricing/quote.js';

/** One route a task may be sent to: a provider model of the catalog, with the request as that model takes it and its quote. */
export interface RouteCandidate {
  /** The route's id: the catalog id of the provider model (`fal.kling-v2.1-master`). */
  readonly routeId: string;
  readonly providerId: string;
  /** The model this route serves for the task: the requested one, or one of the request's fallback `models`. */
  readonly servedModelId: string;
  /** The provider model called (its capabilities, prices, adapter). */
  readonly model: ModelDescriptor;
  /** The request normalized for this route's model. */
  readonly request: NormalizedRequest;
  /** This task's price on this route (markup included), micro-credits. */
  readonly quote: PriceQuote;
}

/**
 * The candidates of one task, best first. Health is NOT applied here: `RouteHealth.admit` is asked at
 * attempt time, so a plan made at submission stays right when a breaker opens or closes before the run.
 */
export interface RoutePlan {
  /** The requested model id (routed or provider model). */
  readonly modelId: string;
  readonly candidates: readonly RouteCandidate[];
  /** What is held: the highest quote among the candidates (whichever answers, the charge fits in it). */
  readonly hold: PriceQuote;
  /** The effective policy (the request's fields over the model's). */
  readonly policy: ModelRoutingPolicy;
}

/** The hold of a set of candidates: the highest quote (by the user's price). */
export function holdOf(candidates: readonly RouteCandidate[]): PriceQuote {
  let hold: PriceQuote | null = null;
  for (const c of candidates) if (hold === null || c.quote.chargeMicro > hold.chargeMicro) hold = c.quote;
  if (hold === null) throw new Error('a plan without candidates has no hold');
  return hold;
}
