import type { JSONSchema7, LanguageModelV4CallOptions, LanguageModelV4Message, LanguageModelV4ToolChoice } from '@ai-sdk/provider';
import { GatewayError } from '@gengate/core';
import { isPrivateUrlLiteral } from '@gengate/core/internal';
import { fitRunLimits } from '../openai/fit-run-limits.js';
import { passThroughOptions, reasoningParts } from './responses-reasoning.js';
import { functionTools, type ContentPart, type InputItem, type ResponseRequest } from './responses-request.js';

/*
 * A Responses request read into the AI SDK's language-model call (LanguageModelV4CallOptions): the
 * providers' own SDK packages map that to each upstream, as for /v1/chat/completions. Items:
 * https://platform.openai.com/docs/api-reference/responses/create#responses-create-input.
 */

type UserPart = Extract<LanguageModelV4Message, { role: 'user' }>['content'][number];
type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];
type ToolPart = Extract<LanguageModelV4Message, { role: 'tool' }>['content'][number];

const where = (i: number) => `input[${i}]`;

function imageOf(url: string | null | undefined, i: number): UserPart {
  if (!url) throw new GatewayError('invalid_request', `${where(i)}: input_image needs an image_url (file ids are not served by this gateway).`, { param: where(i) });
  const data = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'file', data: { type: 'data', data: data[2] ?? '' }, mediaType: data[1] ?? 'image/png' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GatewayError('invalid_request', `${where(i)}: image_url is neither an http(s) URL nor a base64 data URL.`, { param: where(i) });
  }
  if (!/^https?:$/.test(parsed.protocol) || isPrivateUrlLiteral(url)) {
    throw new GatewayError('invalid_request', `${where(i)}: image_url must be a public http(s) URL or a data URL.`, { param: where(i) });
  }
  return { type: 'file', data: { type: 'url', url: parsed }, mediaType: 'image/*' };
}

function partText(p: ContentPart): string {
  switch (p.type) {
    case 'input_text':
    case 'output_text':
      return p.text;
    case 'refusal':
      return p.refusal;
    default:
      return '';
  }
}

function textOf(content: string | readonly ContentPart[]): string {
  return typeof content === 'string' ? content : content.map(partText).filter(Boolean).join('\n');
}

function userParts(content: string | readonly ContentPart[], i: number): UserPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((p): UserPart => {
    if (p.type === 'input_image') return imageOf(p.image_url, i);
    if (p.type === 'input_file') throw new GatewayError('invalid_request', `${where(i)}: input_file parts are not served by this gateway; send the text or an image.`, { param: where(i) });
    return { type: 'text', text: partText(p) };
  });
}

function parseArguments(args: string, i: number): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    throw new GatewayError('invalid_request', `${where(i)}: function_call.arguments is not valid JSON.`, { param: `${where(i)}.arguments` });
  }
}

/**
 * The items as the AI SDK's prompt: consecutive assistant parts (reasoning, text and calls) and tool
 * results are merged into one message each. Reasoning items are kept only for a model that passes them
 * through (`reasoning`: OpenAI's Responses model; see responses-reasoning.ts).
 */
export function toPrompt(instructions: string | null | undefined, items: readonly InputItem[], reasoning = false): LanguageModelV4Message[] {
  const prompt: LanguageModelV4Message[] = instructions ? [{ role: 'system', content: instructions }] : [];
  const toolNames = new Map<string, string>();
  const assistant = (part: AssistantPart) => {
    const last = prompt.at(-1);
    if (last?.role === 'assistant') last.content.push(part);
    else prompt.push({ role: 'assistant', content: [part] });
  };
  const toolResult = (part: ToolPart) => {
    const last = prompt.at(-1);
    if (last?.role === 'tool') last.content.push(part);
    else prompt.push({ role: 'tool', content: [part] });
  };
  items.forEach((it, i) => {
    switch (it.type) {
      case 'reasoning':
        if (reasoning) for (const part of reasoningParts(it)) assistant(part);
        return;
      case 'function_call':
      case 'custom_tool_call':
        toolNames.set(it.call_id, it.name);
        assistant({ type: 'tool-call', toolCallId: it.call_id, toolName: it.name, input: it.type === 'function_call' ? parseArguments(it.arguments, i) : { input: it.input } });
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const name = toolNames.get(it.call_id);
        if (name === undefined) throw new GatewayError('invalid_request', `${where(i)}: call_id '${it.call_id}' answers no earlier function_call.`, { param: `${where(i)}.call_id` });
        toolResult({ type: 'tool-result', toolCallId: it.call_id, toolName: name, output: { type: 'text', value: textOf(it.output) } });
        return;
      }
      default:
        switch (it.role) {
          case 'system':
          case 'developer':
            prompt.push({ role: 'system', content: textOf(it.content) });
            return;
          case 'assistant': {
            const text = textOf(it.content);
            if (text !== '') assistant({ type: 'text', text });
            return;
          }
          case 'user':
            prompt.push({ role: 'user', content: userParts(it.content, i) });
        }
    }
  });
  return prompt;
}

function toolChoiceOf(c: ResponseRequest['tool_choice']): LanguageModelV4ToolChoice | undefined {
  if (c === undefined) return undefined;
  if (typeof c === 'string') return { type: c };
  return { type: 'tool', toolName: c.name };
}

/**
 * The call options of the upstream call (the output budget is set from the task once it is held);
 * `passThrough`: the model is OpenAI's Responses model, which takes reasoning items and OpenAI's options.
 */
export function toCallOptions(r: ResponseRequest, items: readonly InputItem[], passThrough = false): LanguageModelV4CallOptions {
  const format = r.text?.format;
  const tools = functionTools(r);
  const toolChoice = toolChoiceOf(r.tool_choice);
  const effort = r.reasoning?.effort;
  return {
    prompt: toPrompt(r.instructions, items, passThrough),
    ...(passThrough ? { providerOptions: passThroughOptions(r) } : {}),
    ...(r.temperature != null ? { temperature: r.temperature } : {}),
    ...(r.top_p != null ? { topP: r.top_p } : {}),
    ...(tools.length > 0
      ? {
          tools: tools.map((t) => ({
            type: 'function' as const,
            name: t.name,
            ...(t.description != null ? { description: t.description } : {}),
            inputSchema: (t.parameters ?? { type: 'object', properties: {} }) as JSONSchema7,
            ...(t.strict != null ? { strict: t.strict } : {}),
          })),
        }
      : {}),
    ...(toolChoice && tools.length > 0 ? { toolChoice } : {}),
    ...(effort != null ? { reasoning: effort } : {}),
    ...(format?.type === 'json_object' ? { responseFormat: { type: 'json' as const } } : {}),
    ...(format?.type === 'json_schema'
      ? {
          responseFormat: {
            type: 'json' as const,
            name: format.name,
            ...(format.description !== undefined ? { description: format.description } : {}),
            schema: format.schema as JSONSchema7,
          },
        }
      : {}),
  };
}

function itemText(it: InputItem): string {
  switch (it.type) {
    case 'reasoning':
      // Its summary is text the upstream reads (the encrypted content is opaque: not counted).
      return (it.summary ?? []).map((p) => p.text).join('\n');
    case 'function_call':
      return `${it.name}(${it.arguments})`;
    case 'custom_tool_call':
      return `${it.name}(${it.input})`;
    case 'function_call_output':
    case 'custom_tool_call_output':
      return textOf(it.output);
    default:
      return typeof it.content === 'string' ? it.content : it.content.map((p) => (p.type === 'input_image' ? '[image]' : partText(p))).join('\n');
  }
}

/**
 * The gengate run request the call is quoted and recorded as (what POST /api/v1/run would take): the
 * instructions and system/developer messages as `llm_params.system`, every other item's text as the
 * prompt, with the function definitions and the JSON schema appended (they are input tokens too, so the
 * hold covers them), and `max_output_tokens` as `max_tokens`. A conversation past the run limits on text
 * (a coding agent's grows past them within a few turns) is recorded cut and held whole (`heldInput`).
 */
export function toRunRequest(r: ResponseRequest, items: readonly InputItem[]): { readonly body: { prompt: string; llm_params: Record<string, number | string> }; readonly heldInput?: string } {
  const isSystem = (it: InputItem) => it.type !== 'function_call' && it.type !== 'function_call_output' && it.type !== 'custom_tool_call' && it.type !== 'custom_tool_call_output' && it.type !== 'reasoning' && (it.role === 'system' || it.role === 'developer');
  const system = [...(r.instructions ? [r.instructions] : []), ...items.filter(isSystem).map(itemText)].join('\n');
  const rest = items.filter((it) => !isSystem(it)).map(itemText).filter(Boolean);
  const tools = functionTools(r);
  const format = r.text?.format;
  const extras = [...(tools.length > 0 ? [`[tools] ${JSON.stringify(tools)}`] : []), ...(format?.type === 'json_schema' ? [`[text.format] ${JSON.stringify(format)}`] : [])];
  const prompt = [...rest, ...extras].join('\n');
  const fit = fitRunLimits(system, prompt);
  const params: Record<string, number | string> = {};
  if (fit.system !== '') params['system'] = fit.system;
  if (r.max_output_tokens != null) params['max_tokens'] = r.max_output_tokens;
  if (r.temperature != null) params['temperature'] = r.temperature;
  if (r.top_p != null) params['top_p'] = r.top_p;
  const body = { prompt: fit.prompt, llm_params: params };
  return fit.heldInput === undefined ? { body } : { body, heldInput: fit.heldInput };
}
