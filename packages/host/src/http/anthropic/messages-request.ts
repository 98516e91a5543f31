import type { JSONSchema7, LanguageModelV4CallOptions, LanguageModelV4Message, LanguageModelV4ToolChoice, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { GatewayError } from '@gengate/core';
import { isPrivateUrlLiteral } from '@gengate/core/internal';
import { z } from 'zod';
import { ROUTING_FIELDS } from '../openai/routing-fields.js';

/*
 * The request of POST /v1/messages, as Anthropic documents it (https://docs.anthropic.com/en/api/messages,
 * tool use: https://docs.anthropic.com/en/docs/build-with-claude/tool-use, prompt caching:
 * https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching, extended thinking:
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking), read into the AI SDK's
 * language-model call options (LanguageModelV4CallOptions): @ai-sdk/anthropic maps them back to the
 * Messages API for an Anthropic model (cache_control, thinking and signatures ride in `providerOptions.anthropic`),
 * the other providers' packages to their own APIs.
 */

const cacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() }).nullable().optional();
const textBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl, citations: z.array(z.unknown()).nullable().optional() });
const imageSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']), data: z.string().max(30_000_000) }),
  z.object({ type: z.literal('url'), url: z.string().min(1).max(8_192) }),
]);
const imageBlock = z.object({ type: z.literal('image'), source: imageSource, cache_control: cacheControl });
const toolUseBlock = z.object({ type: z.literal('tool_use'), id: z.string().min(1).max(200), name: z.string().min(1).max(200), input: z.record(z.string(), z.unknown()), cache_control: cacheControl });
const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1).max(200),
  content: z.union([z.string(), z.array(z.union([textBlock, imageBlock]))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() });
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

const userBlock = z.discriminatedUnion('type', [textBlock, imageBlock, toolResultBlock]);
const assistantBlock = z.discriminatedUnion('type', [textBlock, toolUseBlock, thinkingBlock, redactedThinkingBlock]);

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userBlock)]) }),
  z.object({ role: z.literal('assistant'), content: z.union([z.string(), z.array(assistantBlock)]) }),
  // A system message between turns (Claude Code, beta mid-conversation-system-2026-04-07): text only.
  z.object({ role: z.literal('system'), content: z.union([z.string(), z.array(textBlock)]) }),
]);

const tool = z.object({
  type: z.literal('custom').optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
  cache_control: cacheControl,
  strict: z.boolean().optional(),
});

const toolChoice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
]);

const thinkingDisplay = z.enum(['summarized', 'omitted', 'updates']).optional();
const thinking = z.discriminatedUnion('type', [
  z.object({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1), display: thinkingDisplay }),
  z.object({ type: z.literal('adaptive'), display: thinkingDisplay }),
  z.object({ type: z.literal('disabled') }),
]);

export const messagesRequestSchema = z.strictObject({
  model: z.string().min(1).max(200),
  ...ROUTING_FIELDS,
  max_tokens: z.number().int().min(1),
  messages: z.array(message).min(1),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string()).max(8_191).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  tools: z.array(tool).max(512).optional(),
  tool_choice: toolChoice.optional(),
  thinking: thinking.optional(),
  metadata: z.object({ user_id: z.string().max(256).nullable().optional() }).optional(),
  output_config: z
    .object({
      effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).optional(),
      format: z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullable().optional(),
    })
    .optional(),
  // Accepted and not forwarded (see docs/anthropic-compatible.md): a warning on the task says so.
  context_management: z.record(z.string(), z.unknown()).optional(),
  service_tier: z.enum(['auto', 'standard_only']).optional(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
type UserContent = Exclude<Extract<MessagesRequest['messages'][number], { role: 'user' }>['content'], string>;
type ToolResult = Extract<UserContent[number], { type: 'tool_result' }>;

export function parseMessagesRequest(body: unknown): MessagesRequest {
  const parsed = messagesRequestSchema.safeParse(body);
  if (!parsed.success) throw GatewayError.fromZod(parsed.error);
  return parsed.data;
}

/** `providerOptions.anthropic.cacheControl` of a block with `cache_control` (ignored by the other providers). */
const cached = (c: z.infer<typeof cacheControl>): { providerOptions?: SharedV4ProviderOptions } =>
  c ? { providerOptions: { anthropic: { cacheControl: c.ttl ? { type: 'ephemeral', ttl: c.ttl } : { type: 'ephemeral' } } } } : {};

function imageOf(block: z.infer<typeof imageBlock>, where: string) {
  if (block.source.type === 'base64') return { type: 'file' as const, data: { type: 'data' as const, data: block.source.data }, mediaType: block.source.media_type, ...cached(block.cache_control) };
  let url: URL;
  try {
    url = new URL(block.source.url);
  } catch {
    throw new GatewayError('invalid_request', `${where}: source.url is not a URL.`, { param: where });
  }
  if (!/^https?:$/.test(url.protocol) || isPrivateUrlLiteral(block.source.url)) {
    throw new GatewayError('invalid_request', `${where}: source.url must be a public http(s) URL.`, { param: where });
  }
  return { type: 'file' as const, data: { type: 'url' as const, url }, mediaType: 'image/*', ...cached(block.cache_control) };
}

function toolResultOf(r: ToolResult, name: string) {
  const text = typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '[image]')).join('\n');
  return {
    type: 'tool-result' as const,
    toolCallId: r.tool_use_id,
    toolName: name,
    output: r.is_error === true ? { type: 'error-text' as const, value: text } : { type: 'text' as const, value: text },
    ...cached(r.cache_control),
  };
}

/**
 * Anthropic messages as the AI SDK's prompt. A user message's `tool_result` blocks become a `tool` message
 * (the AI SDK keeps results apart), in order, each taking its tool's name from the `tool_use` it answers;
 * thinking blocks become reasoning parts carrying their signature.
 */
export function toPrompt(r: MessagesRequest): LanguageModelV4Message[] {
  const prompt: LanguageModelV4Message[] = [];
  if (typeof r.system === 'string') prompt.push({ role: 'system', content: r.system });
  else for (const b of r.system ?? []) prompt.push({ role: 'system', content: b.text, ...cached(b.cache_control) });
  const toolNames = new Map<string, string>();
  r.messages.forEach((m, i) => {
    const where = `messages[${i}].content`;
    if (m.role === 'system') {
      // Between turns: the AI SDK's Anthropic provider sends it as a mid-conversation system message.
      if (typeof m.content === 'string') prompt.push({ role: 'system', content: m.content });
      else for (const b of m.content) prompt.push({ role: 'system', content: b.text, ...cached(b.cache_control) });
      return;
    }
    if (m.role === 'assistant') {
      if (typeof m.content === 'string') {
        prompt.push({ role: 'assistant', content: [{ type: 'text', text: m.content }] });
        return;
      }
      const content: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = [];
      for (const b of m.content) {
        if (b.type === 'text') content.push({ type: 'text', text: b.text, ...cached(b.cache_control) });
        else if (b.type === 'tool_use') {
          toolNames.set(b.id, b.name);
          content.push({ type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input, ...cached(b.cache_control) });
        } else if (b.type === 'thinking') content.push({ type: 'reasoning', text: b.thinking, ...(b.signature !== undefined ? { providerOptions: { anthropic: { signature: b.signature } } } : {}) });
        else content.push({ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: b.data } } });
      }
      prompt.push({ role: 'assistant', content });
      return;
    }
    if (typeof m.content === 'string') {
      prompt.push({ role: 'user', content: [{ type: 'text', text: m.content }] });
      return;
    }
    // Runs of tool results and of other blocks, in their order.
    let user: Extract<LanguageModelV4Message, { role: 'user' }>['content'] = [];
    let tools: Extract<LanguageModelV4Message, { role: 'tool' }>['content'] = [];
    const flush = () => {
      if (tools.length > 0) prompt.push({ role: 'tool', content: tools });
      if (user.length > 0) prompt.push({ role: 'user', content: user });
      user = [];
      tools = [];
    };
    m.content.forEach((b, j) => {
      if (b.type === 'tool_result') {
        if (user.length > 0) flush();
        const name = toolNames.get(b.tool_use_id);
        if (name === undefined) {
          throw new GatewayError('invalid_request', `${where}.${j}: tool_result.tool_use_id '${b.tool_use_id}' answers no earlier tool_use block.`, { param: `${where}.${j}.tool_use_id` });
        }
        tools.push(toolResultOf(b, name));
      } else {
        if (tools.length > 0) flush();
        user.push(b.type === 'text' ? { type: 'text', text: b.text, ...cached(b.cache_control) } : imageOf(b, `${where}.${j}`));
      }
    });
    flush();
  });
  return prompt;
}

function toolChoiceOf(c: MessagesRequest['tool_choice']): LanguageModelV4ToolChoice | undefined {
  if (c === undefined) return undefined;
  switch (c.type) {
    case 'auto':
      return { type: 'auto' };
    case 'any':
      return { type: 'required' };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', toolName: c.name };
  }
}

/** A parameter the target model does not take, reported on the task instead of being dropped silently. */
export interface DroppedParam {
  readonly param: string;
  readonly message: string;
}

/**
 * The call options of the upstream call. For an Anthropic model the Anthropic-only parts (thinking and
 * its budget, metadata.user_id, effort, disable_parallel_tool_use) go in `providerOptions.anthropic`;
 * for another model `thinking` becomes the AI SDK's `reasoning` level and the rest is reported as dropped.
 */
export function toCallOptions(r: MessagesRequest, maxOutputTokens: number, anthropic: boolean): { options: LanguageModelV4CallOptions; dropped: DroppedParam[] } {
  const dropped: DroppedParam[] = [];
  const toolChoice = toolChoiceOf(r.tool_choice);
  const anthropicOptions: Record<string, unknown> = {};
  const parallel = r.tool_choice && 'disable_parallel_tool_use' in r.tool_choice ? r.tool_choice.disable_parallel_tool_use : undefined;
  if (parallel !== undefined) anthropicOptions['disableParallelToolUse'] = parallel;
  if (r.thinking) {
    const t = r.thinking;
    anthropicOptions['thinking'] =
      t.type === 'enabled' ? { type: 'enabled', budgetTokens: t.budget_tokens } : t.type === 'adaptive' ? { type: 'adaptive', ...(t.display ? { display: t.display } : {}) } : { type: 'disabled' };
  }
  if (r.metadata?.user_id) anthropicOptions['metadata'] = { userId: r.metadata.user_id };
  if (r.output_config?.effort) anthropicOptions['effort'] = r.output_config.effort;
  let reasoning: LanguageModelV4CallOptions['reasoning'];
  if (!anthropic) {
    if (r.thinking) reasoning = r.thinking.type === 'disabled' ? 'none' : r.thinking.type === 'adaptive' ? 'provider-default' : r.thinking.budget_tokens >= 16_000 ? 'high' : r.thinking.budget_tokens >= 4_000 ? 'medium' : 'low';
    if (r.output_config?.effort) reasoning = r.output_config.effort;
    if (r.metadata?.user_id) dropped.push({ param: 'metadata.user_id', message: 'metadata.user_id is an Anthropic parameter; it was not forwarded to this model.' });
    if (parallel !== undefined) dropped.push({ param: 'tool_choice.disable_parallel_tool_use', message: 'disable_parallel_tool_use is an Anthropic parameter; it was not forwarded to this model.' });
  }
  if (r.context_management) dropped.push({ param: 'context_management', message: 'context_management is not forwarded by gengate; the upstream saw the whole conversation.' });
  const format = r.output_config?.format;
  return {
    dropped,
    options: {
      prompt: toPrompt(r),
      maxOutputTokens,
      ...(r.temperature !== undefined ? { temperature: r.temperature } : {}),
      ...(r.top_p !== undefined ? { topP: r.top_p } : {}),
      ...(r.top_k !== undefined ? { topK: r.top_k } : {}),
      ...(r.stop_sequences && r.stop_sequences.length > 0 ? { stopSequences: r.stop_sequences } : {}),
      ...(r.tools && r.tools.length > 0
        ? {
            tools: r.tools.map((t) => ({
              type: 'function' as const,
              name: t.name,
              ...(t.description !== undefined ? { description: t.description } : {}),
              inputSchema: t.input_schema as JSONSchema7,
              ...(t.strict !== undefined ? { strict: t.strict } : {}),
              ...cached(t.cache_control),
            })),
          }
        : {}),
      ...(toolChoice ? { toolChoice } : {}),
      ...(format ? { responseFormat: { type: 'json' as const, schema: format.schema as JSONSchema7 } } : {}),
      ...(reasoning !== undefined ? { reasoning } : {}),
      ...(anthropic && Object.keys(anthropicOptions).length > 0 ? { providerOptions: { anthropic: anthropicOptions as SharedV4ProviderOptions[string] } } : {}),
    },
  };
}
