import { GatewayError, type GengateUseCases } from '@gengate/core';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { estimateTokens } from '../openai/run-chat-call.js';
import { messagesModel } from './messages.js';
import { messagesRequestSchema, type MessagesRequest } from './messages-request.js';

/**
 * The body of POST /v1/messages/count_tokens (https://docs.anthropic.com/en/api/messages-count-tokens):
 * a Messages request without the output settings; those a client sends anyway are accepted and ignored.
 */
const countTokensSchema = messagesRequestSchema.extend({ max_tokens: z.number().int().min(1).optional() });

/**
 * Anthropic counts an image as about width x height / 750 tokens, at most about 1,600 for the largest
 * image it does not downscale (https://docs.anthropic.com/en/docs/build-with-claude/vision#evaluate-image-size);
 * the size is not read here, so every image counts as the largest.
 */
const IMAGE_TOKENS = 1_600;

function imagesIn(r: Pick<MessagesRequest, 'messages'>): number {
  let images = 0;
  for (const m of r.messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'image') images += 1;
      if (b.type === 'tool_result' && Array.isArray(b.content)) images += b.content.filter((c) => c.type === 'image').length;
    }
  }
  return images;
}

/**
 * POST /v1/messages/count_tokens: `{ input_tokens }` for a Messages request, never a 404 (Claude Code calls it
 * before long requests). gengate estimates it for every model, with OpenAI's rule of thumb of 4 characters a
 * token over the text, tool calls, tool results and tool definitions, and each image as Anthropic's largest;
 * no upstream count endpoint is called, nothing is held or charged and no task is written.
 */
export function countTokens(deps: { readonly gengate: Pick<GengateUseCases, 'registry'>; readonly aliases: Readonly<Record<string, string>> }) {
  return (req: Request, res: Response): void => {
    const parsed = countTokensSchema.safeParse(req.body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const body = parsed.data;
    messagesModel(deps.gengate.registry, deps.aliases, body.model);
    const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('\n');
    const text = body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content.map((b) => (b.type === 'image' ? { type: 'image' } : b))))).join('\n');
    const tools = body.tools ? JSON.stringify(body.tools) : '';
    res.json({ input_tokens: estimateTokens(system) + estimateTokens(text) + estimateTokens(tools) + imagesIn(body) * IMAGE_TOKENS });
  };
}
