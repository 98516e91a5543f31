import { routedModelDeclarationsSchema, type RoutedModelDeclaration } from '@gengate/core';

/*
 * The route families the adapters package ships (issue 21): one unprefixed model id per family, whose routes
 * are the same upstream model sold by several providers of this package, in the default order tried. An
 * operator's own declaration with the same id replaces the default (see routeFamiliesFor).
 */
export const ROUTE_FAMILIES: readonly RoutedModelDeclaration[] = routedModelDeclarationsSchema.parse([
  {
    id: 'kling-v2.1-master',
    name: 'Kling 2.1 Master',
    description: 'Kuaishou Kling 2.1 Master, 1080p text-to-video or image-to-video, 5 or 10 s: on fal, falling back to Replicate (same price, $0.28 per second).',
    routes: ['fal.kling-v2.1-master', 'replicate.kling-v2.1-master'],
  },
  {
    id: 'flux-schnell',
    name: 'FLUX.1 [schnell]',
    description: 'Black Forest Labs FLUX.1 [schnell] text-to-image: on fal, falling back to Replicate.',
    routes: ['fal.flux-schnell', 'replicate.flux-schnell'],
  },
  {
    id: 'veo-3-fast',
    name: 'Veo 3 Fast',
    description: "Google Veo 3 Fast text-to-video: on Google's Gemini API, falling back to fal.",
    routes: ['google.veo-3-fast', 'fal.veo3-fast'],
  },
  {
    id: 'claude-haiku-4-5',
    name: 'Claude Haiku 4.5',
    description: 'Anthropic Claude Haiku 4.5: on Anthropic, falling back to OpenRouter when the operator declares it (OPENROUTER_CLAUDE_PRESET).',
    routes: ['anthropic.claude-haiku-4-5', 'openrouter.claude-haiku-4.5'],
  },
]);

/**
 * The families a catalog can serve: each default family with only the routes the catalog has (a reseller
 * route the operator has not declared is left out; a family left without a route is dropped), minus the ids
 * the operator declares itself (`taken`: the operator's declaration wins).
 */
export function routeFamiliesFor(catalogIds: Iterable<string>, taken: Iterable<string> = [], families: readonly RoutedModelDeclaration[] = ROUTE_FAMILIES): RoutedModelDeclaration[] {
  const present = new Set(catalogIds);
  const own = new Set(taken);
  return families.flatMap((f) => {
    if (own.has(f.id) || present.has(f.id)) return [];
    const routes = f.routes.filter((r) => present.has(r));
    return routes.length > 0 ? [{ ...f, routes }] : [];
  });
}
