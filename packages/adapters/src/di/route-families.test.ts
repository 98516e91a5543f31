import { describe, expect, it } from 'vitest';
import { builtInCatalogAdapters } from '../docs/catalog-adapters.js';
import { createOpenAICompatibleAdapter } from '../openai-compatible/compatible-adapter.js';
import { OPENROUTER_CLAUDE_PRESET } from '../openai-compatible/compatible-presets.js';
import { ROUTE_FAMILIES, routeFamiliesFor } from './route-families.js';

const builtIn = builtInCatalogAdapters().flatMap((a) => a.models);
const withReseller = [...builtIn, ...createOpenAICompatibleAdapter(OPENROUTER_CLAUDE_PRESET).models];

describe('the route families the adapters package ships', () => {
  it('covers Kling 2.1, FLUX schnell, Veo 3 fast and a Claude, each over two providers, all routes of one modality in the catalog', () => {
    expect(ROUTE_FAMILIES.map((f) => f.id)).toEqual(['kling-v2.1-master', 'flux-schnell', 'veo-3-fast', 'claude-haiku-4-5']);
    for (const f of ROUTE_FAMILIES) {
      const routes = f.routes.map((id) => withReseller.find((m) => m.id === id));
      expect(routes.every(Boolean), f.id).toBe(true);
      expect(new Set(routes.map((m) => m?.provider)).size, f.id).toBe(2);
      expect(new Set(routes.map((m) => m?.modality)).size, f.id).toBe(1);
    }
  });

  it('keeps only the routes a catalog has: without the reseller declared, Claude routes to Anthropic alone', () => {
    const served = routeFamiliesFor(builtIn.map((m) => m.id));
    expect(served.find((f) => f.id === 'claude-haiku-4-5')?.routes).toEqual(['anthropic.claude-haiku-4-5']);
    expect(routeFamiliesFor(withReseller.map((m) => m.id)).find((f) => f.id === 'claude-haiku-4-5')?.routes).toEqual(['anthropic.claude-haiku-4-5', 'openrouter.claude-haiku-4.5']);
    expect(served.find((f) => f.id === 'kling-v2.1-master')?.routes).toEqual(['fal.kling-v2.1-master', 'replicate.kling-v2.1-master']);
  });

  it("drops a family the operator declares itself, and one without any route in the catalog", () => {
    expect(routeFamiliesFor(builtIn.map((m) => m.id), ['flux-schnell']).map((f) => f.id)).not.toContain('flux-schnell');
    expect(routeFamiliesFor(['sandbox.echo-chat'])).toEqual([]);
  });
});
