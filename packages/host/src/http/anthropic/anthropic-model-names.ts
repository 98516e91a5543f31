import { isGatewayError, type ModelDescriptor, type ModelRegistry } from '@gengate/core';
import { resolveModel } from '../openai/model-names.js';

/** A snapshot date (`claude-haiku-4-5-20251001`), `-latest`, or Claude Code's context marker (`[1m]`). */
const SUFFIX = /(?:-\d{8}|-latest|\[\w+\])+$/;
const FAMILY = /^claude-(opus|sonnet|haiku)(?:-|$)/;

/**
 * The model a Messages request names, as /v1 resolves it (a gengate id, an operator alias, a bare upstream
 * name), then as Anthropic clients write it: without a snapshot date or `[1m]` suffix
 * (`claude-haiku-4-5-20251001` -> `anthropic.claude-haiku-4-5`), and a Claude family name this gateway does
 * not list (`claude-sonnet-4-5`) as that family's current model here (`anthropic.claude-sonnet-5-5`), so
 * Claude Code's defaults work. Operator aliases win over all of this.
 */
export function resolveAnthropicModel(registry: ModelRegistry, name: string, aliases: Readonly<Record<string, string>>): ModelDescriptor {
  try {
    return resolveModel(registry, name, aliases);
  } catch (error) {
    if (!isGatewayError(error) || error.type !== 'model_not_found') throw error;
    const bare = name.replace(SUFFIX, '');
    if (bare !== name && bare !== '') {
      try {
        return resolveModel(registry, bare, aliases);
      } catch {
        // fall through to the family
      }
    }
    const family = FAMILY.exec(bare)?.[1];
    const current = family === undefined ? undefined : familyModel(registry, family);
    if (current) return current;
    throw error;
  }
}

/** The family's model this gateway serves: the highest version among the active Anthropic models of that family. */
function familyModel(registry: ModelRegistry, family: string): ModelDescriptor | undefined {
  const version = (m: ModelDescriptor) => (/-(\d+)-(\d+)$/.exec(m.id) ?? []).slice(1).map(Number);
  const candidates = registry
    .all()
    .filter((m) => m.provider === 'anthropic' && m.modality === 'chat' && registry.isActive(m) && m.id.startsWith(`anthropic.claude-${family}-`))
    .sort((a, b) => {
      const [am = 0, an = 0] = version(a);
      const [bm = 0, bn = 0] = version(b);
      return bm - am || bn - an;
    });
  return candidates[0];
}
