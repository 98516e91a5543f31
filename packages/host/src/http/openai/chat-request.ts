import type { JSONSchema7, LanguageModelV4CallOptions, LanguageModelV4Message, LanguageModelV4ToolChoice } from '@ai-sdk/provider';
import { GatewayError } from '@gengate/core';
import { isPrivateUrlLiteral } from '@gengate/core/internal';
import { z } from 'zod';
import { ROUTING_FIELDS } from './routing-fields.js';

/*
 * The request of POST /v1/chat/completions, as OpenAI documents it
 * (https://platform.openai.com/docs/api-reference/chat/create), read into the AI SDK's language-model
 * call options (LanguageModelV4CallOptions): the providers' own SDK packages map those to each upstream.
 */

const text = z.string();
const textPart = z.object({ type: z.literal('text'), text });
const imagePart = z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string().min(1).max(20_000_000), detail: z.enum(['auto', 'low', 'high']).optional() }) });
const toolCall = z.object({ id: z.string().min(1), type: z.literal('function'), function: z.object({ name: z.string().min(1), arguments: z.string() }) });

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.union([text, z.array(textPart)]), name: z.string().optional() }),
  z.object({ role: z.literal('developer'), content: z.union([text, z.array(textPart)]), name: z.string().optional() }),
  z.object({ role: z.literal('user'), content: z.union([text, z.array(z.union([textPart, imagePart]))]), name: z.string().optional() }),
  z.object({
    role: z.literal('assistant'),
    content: z.union([text, z.array(textPart), z.null()]).optional(),
    tool_calls: z.array(toolCall).optional(),
    refusal: z.string().nullable().optional(),
    name: z.string().optional(),
  }),
  z.object({ role: z.literal('tool'), content: z.union([text, z.array(textPart)]), tool_call_id: z.string().min(1) }),
]);

const jsonSchema = z.record(z.string(), z.unknown());
const tool = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/), description: z.string().optional(), parameters: jsonSchema.optional(), strict: z.boolean().nullable().optional() }),
});

export const chatCompletionRequestSchema = z.strictObject({
  model: z.string().min(1).max(200),
  ...ROUTING_FIELDS,
  messages: z.array(message).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  tools: z.array(tool).max(128).optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]).optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({ type: z.literal('json_schema'), json_schema: z.object({ name: z.string().min(1).max(64), description: z.string().optional(), schema: jsonSchema.optional(), strict: z.boolean().nullable().optional() }) }),
    ])
    .optional(),
  n: z.literal(1).nullable().optional(),
  user: z.string().max(256).optional(),
  // Accepted, not forwarded (they describe OpenAI's own storage and tiers): listed so clients that send them work.
  store: z.boolean().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  service_tier: z.string().nullable().optional(),
  logprobs: z.literal(false).nullable().optional(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

export function parseChatRequest(body: unknown): ChatCompletionRequest {
  const parsed = chatCompletionRequestSchema.safeParse(body);
  if (!parsed.success) throw GatewayError.fromZod(parsed.error);
  return parsed.data;
}

const partsText = (c: string | readonly { text: string }[] | null | undefined): string => (c == null ? '' : typeof c === 'string' ? c : c.map((p) => p.text).join('\n'));

function fileOf(url: string, index: number): { type: 'file'; data: { type: 'data'; data: string } | { type: 'url'; url: URL }; mediaType: string } {
  const data = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'file', data: { type: 'data', data: data[2] ?? '' }, mediaType: data[1] ?? 'image/png' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GatewayError('invalid_request', `messages[${index}]: image_url.url is neither an http(s) URL nor a base64 data URL.`, { param: `messages[${index}].content` });
  }
  if (!/^https?:$/.test(parsed.protocol) || isPrivateUrlLiteral(url)) {
    throw new GatewayError('invalid_request', `messages[${index}]: image_url.url must be a public http(s) URL or a data URL.`, { param: `messages[${index}].content` });
  }
  return { type: 'file', data: { type: 'url', url: parsed }, mediaType: 'image/*' };
}

/** OpenAI messages as the AI SDK's prompt; a tool result takes its tool's name from the assistant call it answers. */
export function toPrompt(messages: ChatCompletionRequest['messages']): LanguageModelV4Message[] {
  const toolNames = new Map<string, string>();
  return messages.map((m, i): LanguageModelV4Message => {
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: partsText(m.content) };
      case 'user':
        return {
          role: 'user',
          content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : fileOf(p.image_url.url, i))),
        };
      case 'assistant': {
        const content: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = [];
        const t = partsText(m.content);
        if (t !== '') content.push({ type: 'text', text: t });
        for (const c of m.tool_calls ?? []) {
          toolNames.set(c.id, c.function.name);
          content.push({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: parseArguments(c.function.arguments, i) });
        }
        return { role: 'assistant', content };
      }
      case 'tool': {
        const name = toolNames.get(m.tool_call_id);
        if (name === undefined) throw new GatewayError('invalid_request', `messages[${i}]: tool_call_id '${m.tool_call_id}' answers no earlier assistant tool call.`, { param: `messages[${i}].tool_call_id` });
        return { role: 'tool', content: [{ type: 'tool-result', toolCallId: m.tool_call_id, toolName: name, output: { type: 'text', value: partsText(m.content) } }] };
      }
    }
  });
}

function parseArguments(args: string, index: number): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    throw new GatewayError('invalid_request', `messages[${index}]: tool_calls[].function.arguments is not valid JSON.`, { param: `messages[${index}].tool_calls` });
  }
}

function toolChoiceOf(c: ChatCompletionRequest['tool_choice']): LanguageModelV4ToolChoice | undefined {
  if (c === undefined) return undefined;
  if (typeof c === 'string') return { type: c };
  return { type: 'tool', toolName: c.function.name };
}

/** The call options of the upstream call (without the prompt-independent abort signal and the output budget). */
export function toCallOptions(r: ChatCompletionRequest, maxOutputTokens: number): LanguageModelV4CallOptions {
  const format = r.response_format;
  const stop = r.stop == null ? undefined : typeof r.stop === 'string' ? [r.stop] : r.stop;
  const toolChoice = toolChoiceOf(r.tool_choice);
  return {
    prompt: toPrompt(r.messages),
    maxOutputTokens,
    ...(r.temperature != null ? { temperature: r.temperature } : {}),
    ...(r.top_p != null ? { topP: r.top_p } : {}),
    ...(stop ? { stopSequences: stop } : {}),
    ...(r.seed != null ? { seed: r.seed } : {}),
    ...(r.presence_penalty != null ? { presencePenalty: r.presence_penalty } : {}),
    ...(r.frequency_penalty != null ? { frequencyPenalty: r.frequency_penalty } : {}),
    ...(r.tools && r.tools.length > 0
      ? {
          tools: r.tools.map((t) => ({
            type: 'function' as const,
            name: t.function.name,
            ...(t.function.description !== undefined ? { description: t.function.description } : {}),
            inputSchema: (t.function.parameters ?? { type: 'object', properties: {} }) as JSONSchema7,
            ...(t.function.strict != null ? { strict: t.function.strict } : {}),
          })),
        }
      : {}),
    ...(toolChoice ? { toolChoice } : {}),
    ...(format?.type === 'json_object' ? { responseFormat: { type: 'json' as const } } : {}),
    ...(format?.type === 'json_schema'
      ? {
          responseFormat: {
            type: 'json' as const,
            name: format.json_schema.name,
            ...(format.json_schema.description !== undefined ? { description: format.json_schema.description } : {}),
            ...(format.json_schema.schema !== undefined ? { schema: format.json_schema.schema as JSONSchema7 } : {}),
          },
        }
      : {}),
  };
}

/**
 * The gengate run request a chat call is quoted and recorded as (the same one POST /api/v1/run would take
 * for one user message): the system and developer messages as `llm_params.system`, the other messages'
 * text as the prompt, and tool definitions and the response schema appended to it (they are input tokens
 * too, so the hold covers them). `max_tokens` when given.
 */
export function toRunRequest(r: ChatCompletionRequest): { prompt: string; llm_params: Record<string, number | string> } {
  const system = r.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => partsText(m.content));
  const rest = r.messages.flatMap((m) => {
    if (m.role === 'system' || m.role === 'developer') return [];
    if (m.role === 'user') return [typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n')];
    if (m.role === 'assistant') return [[partsText(m.content), ...(m.tool_calls ?? []).map((c) => `${c.function.name}(${c.function.arguments})`)].filter(Boolean).join('\n')];
    return [partsText(m.content)];
  });
  const extras = [
    ...(r.tools && r.tools.length > 0 ? [`[tools] ${JSON.stringify(r.tools)}`] : []),
    ...(r.response_format?.type === 'json_schema' ? [`[response_format] ${JSON.stringify(r.response_format.json_schema)}`] : []),
  ];
  const maxTokens = r.max_completion_tokens ?? r.max_tokens ?? undefined;
  const params: Record<string, number | string> = {};
  if (system.length > 0) params['system'] = system.join('\n');
  if (maxTokens !== undefined) params['max_tokens'] = maxTokens;
  if (r.temperature != null) params['temperature'] = r.temperature;
  if (r.top_p != null) params['top_p'] = r.top_p;
  return { prompt: [...rest, ...extras].join('\n'), llm_params: params };
}
