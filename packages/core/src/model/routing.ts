import { z } from 'zod';

/*
 * Routing: one model served by several routes (a route = a provider model of the catalog, e.g.
 * `fal.kling-v2.1-master`), with a policy set by the operator per routed model and by the caller per
 * request. The field names are OpenRouter's `provider` object's where they exist
 * (https://openrouter.ai/docs/features/provider-routing): `order`, `only`, `ignore`, `sort`,
 * `allow_fallbacks`, `max_price`; `models` is OpenRouter's list of fallback model ids.
 */

export const ROUTE_SORTS = ['price', 'latency', 'success_rate'] as const;
export type RouteSort = (typeof ROUTE_SORTS)[number];

/** A provider id (`fal`) or a route id (`fal.kling-v2.1-master`). */
const routeRef = z.string().min(1).max(200);
const routeRefs = z.array(routeRef).max(50);

/** A catalog model id: a provider model (`fal.kling-v2.1-master`) or a routed model (`kling-v2.1-master`). */
export const modelIdSchema = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be a model id of GET /api/v1/models').max(200);

/**
 * The request-level policy (OpenRouter's `provider` object). Entries of `order`, `only` and `ignore` name a
 * provider (`fal`: every route of that provider) or one route (`fal.kling-v2.1-master`).
 */
export const routingPolicySchema = z.strictObject({
  /** Routes or providers to try first, in this order; the others follow in the model's own order. */
  order: routeRefs.optional(),
  /** Only these routes or providers. */
  only: routeRefs.optional(),
  /** Never these routes or providers. */
  ignore: routeRefs.optional(),
  /** Order the candidates by quoted price (lowest first), by latency p50 or by success rate (from RouteHealth). */
  sort: z.enum(ROUTE_SORTS).optional(),
  /** false: only the first candidate is tried (default true). */
  allow_fallbacks: z.boolean().optional(),
  /**
   * The most this task may cost, in credits per task (as quotes are shown; up to 6 decimals, kept as
   * integer micro-credits, rounded half up): routes whose quote is above it are not candidates.
   */
  max_price: z.number().nonnegative().max(1_000_000_000).optional(),
});
export type RoutingPolicy = z.infer<typeof routingPolicySchema>;

/** An operator's weight for a route: among candidates of equal rank, one is drawn with probability weight / sum. */
export const routeWeightSchema = z.strictObject({ route: routeRef, weight: z.number().int().min(1).max(1_000_000) });
export type RouteWeight = z.infer<typeof routeWeightSchema>;

/** The operator's policy of a routed model: the request-level fields as defaults, plus what only an operator sets. */
export const modelRoutingPolicySchema = routingPolicySchema.extend({
  /** Weighted random choice among candidates that the order and sort leave equal (operator only). */
  weights: z.array(routeWeightSchema).max(50).optional(),
  /** Fall back to the next route when a route refuses the content under its policy (default false: the task fails). */
  fallback_on_content_policy: z.boolean().optional(),
  /** Fall back to the next route when a route refuses the request as invalid (default false: the task fails). */
  fallback_on_invalid_request: z.boolean().optional(),
});
export type ModelRoutingPolicy = z.infer<typeof modelRoutingPolicySchema>;

/**
 * The request-level routing fields, as one schema: `POST /api/v1/run/{model_id}` takes them at the top of
 * its body, and the `/v1` dialects (chat completions, messages, responses, images, videos) at the top of
 * theirs, as OpenRouter does.
 */
export const requestRoutingSchema = z.strictObject({
  provider: routingPolicySchema.optional(),
  /** Fallback model ids, tried after the requested model's routes (same modality), as OpenRouter's `models`. */
  models: z.array(modelIdSchema).min(1).max(10).optional(),
});
export type RequestRouting = z.infer<typeof requestRoutingSchema>;

/**
 * A routed model as an operator (host configuration `routedModels` / `GENGATE_ROUTED_MODELS`) or an adapter
 * package (its default families) declares it: its own unprefixed id, and routes that are provider models of
 * the catalog, all of one modality. The first route's capabilities are what the model's listing shows;
 * each route still checks the request against its own before it becomes a candidate.
 */
export const routedModelDeclarationSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*$/)
    .max(100),
  name: z.string().min(1).max(200),
  description: z.string().max(2_000).optional(),
  tags: z.array(z.string().max(50)).max(20).optional(),
  routes: z.array(z.string().min(1).max(200)).min(1).max(20),
  policy: modelRoutingPolicySchema.optional(),
});
export type RoutedModelDeclaration = z.infer<typeof routedModelDeclarationSchema>;
export const routedModelDeclarationsSchema = z.array(routedModelDeclarationSchema).max(500);

/** How one attempt on a route ended (`skipped`: its circuit breaker was open, nothing was sent). */
export type RouteAttemptOutcome = 'success' | 'started' | 'error' | 'skipped';

/** One entry of a task's attempt log. */
export interface RouteAttempt {
  /** The route: the catalog id of the provider model called. */
  readonly route: string;
  readonly provider: string;
  readonly outcome: RouteAttemptOutcome;
  /** Null unless `error`/`skipped`: the UpstreamError kind, `deadline`, `aborted`, `internal` or `circuit_open`. */
  readonly errorClass: string | null;
  /** The upstream's HTTP status where it answered one. */
  readonly upstreamStatus: number | null;
  readonly startedAt: Date;
  readonly endedAt: Date;
}
