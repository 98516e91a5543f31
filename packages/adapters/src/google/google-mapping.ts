import type { NormalizedChatRequest, NormalizedImageRequest } from '@gengate/core/adapter';
import type { ChatSettings, ImageSettings, Mapped } from '../kit/index.js';
import { geminiChatParams } from './google-models.js';

/*
 * gengate's request -> the AI SDK call for the Gemini API (pure). Chat: generationConfig temperature,
 * topP, maxOutputTokens, a systemInstruction, thinkingConfig.thinkingLevel and safetySettings. Images
 * (Gemini image models through generateContent): imageConfig.aspectRatio (width/height pick the
 * ratio of one of the model's fixed sizes), seed, and n as n calls.
 */

export function googleChatSettings(req: NormalizedChatRequest): Mapped<ChatSettings> {
  const p = geminiChatParams.parse(req.providerParams);
  const google: Record<string, unknown> = {};
  if (p.thinking_level !== undefined) google['thinkingConfig'] = { thinkingLevel: p.thinking_level };
  if (p.safety_settings !== undefined) google['safetySettings'] = p.safety_settings;
  return {
    settings: {
      prompt: req.prompt,
      ...(req.system !== null ? { system: req.system } : {}),
      ...(req.temperature !== null ? { temperature: req.temperature } : {}),
      ...(req.topP !== null ? { topP: req.topP } : {}),
      maxOutputTokens: req.maxTokens,
      ...(Object.keys(google).length > 0 ? { providerOptions: { google: google as Record<string, never> } } : {}),
    },
    warnings: [],
  };
}

export function googleImageSettings(req: NormalizedImageRequest): Mapped<ImageSettings> {
  return {
    settings: {
      prompt: req.prompt ?? '',
      n: req.n,
      aspectRatio: req.aspectRatio as `${number}:${number}`,
      ...(req.seed !== null ? { seed: req.seed } : {}),
    },
    warnings: [],
  };
}
