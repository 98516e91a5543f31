import { UpstreamError, type NormalizedChatRequest } from '@gengate/core/adapter';
import type { ChatSettings, Mapped } from '../kit/index.js';
import { claudeEffortParams, claudeThinkingParams } from './anthropic-models.js';

/*
 * gengate's request -> the AI SDK call for Anthropic's Messages API (pure): max_tokens, a system
 * prompt, temperature or top_p where the model takes them (refused before the hold where it does not),
 * and `output_config.effort` (Claude 5.x) or `thinking` with a budget (Claude Haiku 4.5).
 */
export function anthropicChatSettings(req: NormalizedChatRequest): Mapped<ChatSettings> {
  const { effort } = claudeEffortParams.loose().parse(req.providerParams);
  const { thinking_budget: budget } = claudeThinkingParams.loose().parse(req.providerParams);
  let maxOutputTokens = req.maxTokens;
  let anthropic: Record<string, unknown> | null = null;
  if (effort !== undefined) anthropic = { effort };
  if (budget !== undefined) {
    // The SDK sends max_tokens = maxOutputTokens + budget: keep the total (what was held) at max_tokens.
    if (budget >= req.maxTokens) {
      throw new UpstreamError(`provider_params.thinking_budget (${budget}) must be less than llm_params.max_tokens (${req.maxTokens}), which includes the thinking`, {
        kind: 'invalid_input',
      });
    }
    maxOutputTokens = req.maxTokens - budget;
    anthropic = { thinking: { type: 'enabled', budgetTokens: budget } };
  }
  return {
    settings: {
      prompt: req.prompt,
      ...(req.system !== null ? { system: req.system } : {}),
      ...(req.temperature !== null ? { temperature: req.temperature } : {}),
      ...(req.topP !== null ? { topP: req.topP } : {}),
      maxOutputTokens,
      ...(anthropic ? { providerOptions: { anthropic: anthropic as Record<string, never> } } : {}),
    },
    warnings: [],
  };
}
