import { GatewayError, type ModelDescriptor, type ModelRegistry } from '@gengate/core';

/**
 * The model a /v1 request names: a gengate id (`openai.gpt-4.1-mini`), an operator alias, or a bare
 * upstream name (`gpt-4.1-mini`) when exactly one model's id ends with it.
 */
export function resolveModel(registry: ModelRegistry, name: string, aliases: Readonly<Record<string, string>>): ModelDescriptor {
  const direct = registry.find(aliases[name] ?? name);
  if (direct) return direct;
  const bare = registry.all().filter((m) => m.id.slice(m.id.indexOf('.') + 1) === name);
  if (bare.length === 1 && bare[0]) return bare[0];
  if (bare.length > 1) {
    throw new GatewayError('model_not_found', `The model '${name}' is ambiguous on this gateway: name one of ${bare.map((m) => m.id).join(', ')}.`, { param: 'model' });
  }
  throw new GatewayError('model_not_found', `The model '${name}' does not exist on this gateway; GET /v1/models lists them.`, { param: 'model' });
}
