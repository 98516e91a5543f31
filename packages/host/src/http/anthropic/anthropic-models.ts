import { GatewayError, type GengateUseCases, type ModelDescriptor } from '@gengate/core';
import { Router } from 'express';
import { z } from 'zod';
import { resolveAnthropicModel } from './anthropic-model-names.js';

/** gengate's catalog has no release dates: every model reports the same fixed `created_at` (as /v1/models does). */
const CREATED_AT = '2025-01-01T00:00:00Z';

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1_000).default(20),
  before_id: z.string().max(200).optional(),
  after_id: z.string().max(200).optional(),
});

/**
 * GET /v1/models and /v1/models/{model_id} in Anthropic's shape, for requests that carry
 * `anthropic-version` (https://docs.anthropic.com/en/api/models-list: `{ data: [{ type: "model", id,
 * display_name, created_at }], has_more, first_id, last_id }`, paged by `limit`, `after_id`, `before_id`).
 * Only chat models are listed (the Messages API serves chat); ids are gengate's, and a name such as
 * `claude-sonnet-4-5` resolves as /v1/messages resolves it.
 */
export function anthropicModelsRoutes(gengate: Pick<GengateUseCases, 'registry'>, aliases: Readonly<Record<string, string>>): Router {
  const router = Router();
  const view = (m: ModelDescriptor) => ({ type: 'model', id: m.id, display_name: m.name, created_at: CREATED_AT });
  const chatModels = () => gengate.registry.all().filter((m) => m.modality === 'chat' && gengate.registry.isActive(m));
  router.get('/models', (req, res) => {
    const parsed = listQuery.safeParse(req.query);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const { limit, before_id, after_id } = parsed.data;
    const all = chatModels();
    const position = (id: string, param: string) => {
      const i = all.findIndex((m) => m.id === id);
      if (i < 0) throw new GatewayError('invalid_request', `${param} '${id}' is not a model id of this list.`, { param });
      return i;
    };
    let page: ModelDescriptor[];
    let hasMore: boolean;
    if (before_id !== undefined) {
      const end = position(before_id, 'before_id');
      page = all.slice(Math.max(0, end - limit), end);
      hasMore = end - limit > 0;
    } else {
      const start = after_id !== undefined ? position(after_id, 'after_id') + 1 : 0;
      page = all.slice(start, start + limit);
      hasMore = start + limit < all.length;
    }
    res.json({ data: page.map(view), has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null });
  });
  router.get('/models/:model', (req, res) => {
    const name = req.params.model;
    if (typeof name !== 'string' || name.length > 200) throw new GatewayError('invalid_request', 'The model id is too long.', { param: 'model' });
    res.json(view(resolveAnthropicModel(gengate.registry, name, aliases)));
  });
  return router;
}
