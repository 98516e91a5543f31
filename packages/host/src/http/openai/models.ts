import { GatewayError, type GengateUseCases, type ModelDescriptor } from '@gengate/core';
import { Router } from 'express';
import { resolveModel } from './model-names.js';

/** gengate's catalog has no creation dates: every model reports the same fixed `created` (2025-01-01T00:00:00Z). */
const CREATED = 1_735_689_600;

/**
 * GET /v1/models and /v1/models/{id} in OpenAI's shape (https://platform.openai.com/docs/api-reference/models:
 * `{ object: "list", data: [{ id, object: "model", created, owned_by }] }`), with gengate's extensions under
 * `gengate`: name, modality, whether it is active, and its pricing.
 */
export function modelsRoutes(gengate: Pick<GengateUseCases, 'registry' | 'prices'>, aliases: Readonly<Record<string, string>>): Router {
  const router = Router();
  const view = (m: ModelDescriptor) => ({
    id: m.id,
    object: 'model',
    created: CREATED,
    owned_by: m.provider,
    gengate: { name: m.name, modality: m.modality, description: m.description, is_active: gengate.registry.isActive(m), pricing: gengate.prices.view(m) },
  });
  router.get('/models', (_req, res) => {
    res.json({ object: 'list', data: gengate.registry.all().map(view) });
  });
  router.get('/models/:model', (req, res) => {
    const name = req.params.model;
    if (typeof name !== 'string' || name.length > 200) throw new GatewayError('invalid_request', 'The model id is too long.', { param: 'model' });
    res.json(view(resolveModel(gengate.registry, name, aliases)));
  });
  return router;
}
