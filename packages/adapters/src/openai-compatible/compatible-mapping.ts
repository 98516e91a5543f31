import type { NormalizedChatRequest } from '@gengate/core/adapter';
import type { ChatSettings, Mapped } from '../kit/index.js';

/*
 * gengate's request -> a /v1/chat/completions call (pure): temperature, top_p, max_tokens and a system
 * message, each only when the operator declared the model accepts it (otherwise refused before the hold).
 */
export function compatibleChatSettings(req: NormalizedChatRequest): Mapped<ChatSettings> {
  return {
    settings: {
      prompt: req.prompt,
      ...(req.system !== null ? { system: req.system } : {}),
      ...(req.temperature !== null ? { temperature: req.temperature } : {}),
      ...(req.topP !== null ? { topP: req.topP } : {}),
      maxOutputTokens: req.maxTokens,
    },
    warnings: [],
  };
}

/** The upstream's own statement of the cost (OpenRouter's `usage.cost`, in USD) as micro-USD; undefined when absent. */
export function reportedCostMicroUsd(body: unknown): number | undefined {
  const usage = (body as { usage?: { cost?: unknown } } | null)?.usage;
  const cost = usage?.cost;
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? Math.round(cost * 1_000_000) : undefined;
}
