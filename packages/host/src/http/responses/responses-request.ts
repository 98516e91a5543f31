import { GatewayError } from '@gengate/core';
import { z } from 'zod';
import { ROUTING_FIELDS } from '../openai/routing-fields.js';

/*
 * The request of POST /v1/responses, as OpenAI documents it
 * (https://platform.openai.com/docs/api-reference/responses/create): `input` as a string or a list of items
 * (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input). Items keep the
 * fields a client echoes back (`id`, `status`) without failing on them; the top level is strict, so a field
 * gengate would silently ignore is a 400 naming it instead, except the ones listed as accepted.
 */

const inputText = z.object({ type: z.literal('input_text'), text: z.string() });
const inputImage = z.object({
  type: z.literal('input_image'),
  image_url: z.string().min(1).max(20_000_000).nullable().optional(),
  file_id: z.string().nullable().optional(),
  detail: z.enum(['auto', 'low', 'high', 'original']).optional(),
});
const inputFile = z.object({ type: z.literal('input_file') });
const outputText = z.object({ type: z.literal('output_text'), text: z.string() });
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
const contentPart = z.discriminatedUnion('type', [inputText, inputImage, inputFile, outputText, refusal]);

const role = z.enum(['user', 'assistant', 'system', 'developer']);
const message = z.object({ type: z.literal('message').optional(), role, content: z.union([z.string(), z.array(contentPart)]) });
const functionCall = z.object({ type: z.literal('function_call'), call_id: z.string().min(1), name: z.string().min(1), arguments: z.string() });
const functionCallOutput = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(contentPart)]),
});
const customToolCall = z.object({ type: z.literal('custom_tool_call'), call_id: z.string().min(1), name: z.string().min(1), input: z.string() });
const customToolCallOutput = z.object({ type: z.literal('custom_tool_call_output'), call_id: z.string().min(1), output: z.union([z.string(), z.array(contentPart)]) });
/**
 * Reasoning items a client sends back (Codex does): forwarded to an OpenAI model (their id, summary and
 * encrypted content are the upstream's own), dropped with a warning on the task for any other model.
 */
const reasoning = z.object({
  type: z.literal('reasoning'),
  id: z.string().min(1).max(500).optional(),
  summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })).optional(),
  encrypted_content: z.string().nullable().optional(),
});

export const inputItemSchema = z.union([message, functionCall, functionCallOutput, customToolCall, customToolCallOutput, reasoning]);
export type InputItem = z.infer<typeof inputItemSchema>;
export type InputMessage = z.infer<typeof message>;
export type ContentPart = z.infer<typeof contentPart>;

const jsonSchema = z.record(z.string(), z.unknown());
const functionTool = z.object({
  type: z.literal('function'),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string().nullable().optional(),
  parameters: jsonSchema.nullable().optional(),
  strict: z.boolean().nullable().optional(),
});
/** Tools of other types (hosted tools, Codex's `custom`, `local_shell`, `web_search`...): accepted, not forwarded. */
const otherTool = z.object({ type: z.string().min(1).refine((t) => t !== 'function', 'a function tool needs a valid name') });
const tool = z.union([functionTool, otherTool]);
export type FunctionTool = z.infer<typeof functionTool>;

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), name: z.string().min(1) }),
  // A hosted tool or an allowed-tools list: those tools are not forwarded, so the model chooses among the functions.
  z.object({ type: z.string().min(1).refine((t) => t !== 'function', 'a function tool choice needs a name') }).transform(() => 'auto' as const),
]);

const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().min(1).max(64),
    schema: jsonSchema,
    description: z.string().optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);

export const responseRequestSchema = z.strictObject({
  model: z.string().min(1).max(200),
  ...ROUTING_FIELDS,
  input: z.union([z.string(), z.array(inputItemSchema)]),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_obfuscation: z.boolean().optional() }).nullable().optional(),
  tools: z.array(tool).max(256).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  text: z.object({ format: textFormat.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullable().optional() }).optional(),
  max_output_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  reasoning: z
    .object({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullable().optional(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullable().optional(),
      generate_summary: z.enum(['auto', 'concise', 'detailed']).nullable().optional(),
    })
    .nullable()
    .optional(),
  store: z.boolean().nullable().optional(),
  previous_response_id: z.string().min(1).max(200).nullable().optional(),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullable().optional(),
  user: z.string().max(256).optional(),
  // `reasoning.encrypted_content` asks for reasoning items' encrypted content (OpenAI models); the rest is accepted, not forwarded.
  include: z.array(z.string()).nullable().optional(),
  // Accepted, not forwarded (they describe OpenAI's own caching and tiers; Codex sends them).
  prompt_cache_key: z.string().max(1024).nullable().optional(),
  prompt_cache_retention: z.enum(['in_memory', '24h']).nullable().optional(),
  client_metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  safety_identifier: z.string().max(256).nullable().optional(),
  service_tier: z.string().nullable().optional(),
  truncation: z.enum(['auto', 'disabled']).nullable().optional(),
  // Refused unless off: gengate runs every response in the foreground, in no server-side conversation.
  background: z.literal(false).nullable().optional(),
  top_logprobs: z.literal(0).nullable().optional(),
});

export type ResponseRequest = z.infer<typeof responseRequestSchema>;

export function parseResponseRequest(body: unknown): ResponseRequest {
  const parsed = responseRequestSchema.safeParse(body);
  if (!parsed.success) throw GatewayError.fromZod(parsed.error);
  return parsed.data;
}

/** The input as items: a string is one user message. */
export function inputItems(r: Pick<ResponseRequest, 'input'>): InputItem[] {
  return typeof r.input === 'string' ? [{ type: 'message', role: 'user', content: r.input }] : r.input;
}

export function functionTools(r: Pick<ResponseRequest, 'tools'>): FunctionTool[] {
  return (r.tools ?? []).filter((t): t is FunctionTool => t.type === 'function');
}

/** Whether the client asked for reasoning items' encrypted content (`include: ["reasoning.encrypted_content"]`). */
export function wantsEncryptedReasoning(r: Pick<ResponseRequest, 'include'>): boolean {
  return r.include?.includes('reasoning.encrypted_content') ?? false;
}
