/*
 * The Responses API of the fake OpenAI server (what @ai-sdk/openai's `openai.responses(id)` calls):
 * - request and Response object: https://platform.openai.com/docs/api-reference/responses/create and
 *   https://platform.openai.com/docs/api-reference/responses/object (`input` items, `instructions`,
 *   `tools` of `{ type: "function", name, parameters }`, `tool_choice`, `text.format`, `max_output_tokens`;
 *   `output` items `reasoning`, `message` with `output_text` parts, `function_call`; `usage` with
 *   `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`);
 * - reasoning items: https://platform.openai.com/docs/guides/reasoning ("Encrypted reasoning items": with
 *   `store: false` and `include: ["reasoning.encrypted_content"]` each reasoning item carries
 *   `encrypted_content`, and the client passes the items back in the next turn's `input`; a summary comes with
 *   `reasoning.summary`); the reasoning item schema says to take `encrypted_content` from the streamed
 *   `response.output_item.done` (the one in `.added` may be incomplete);
 * - the stream: https://platform.openai.com/docs/api-reference/responses-streaming (every event typed and
 *   numbered; `response.reasoning_summary_part.added`, `response.reasoning_summary_text.delta`/`.done`,
 *   `response.reasoning_summary_part.done` inside a reasoning item).
 * The fake reasons (one reasoning item first) when the request asks for reasoning: `reasoning` set or
 * `include` naming `reasoning.encrypted_content`. Its encrypted content is `enc_<n>` where n counts the
 * reasoning items the request carried back, so a test sees the chain survive.
 */
import type { FakeReply, RecordedCall } from '../fake-upstream.js';
import { countTokens, echoReply, FAKE_REFUSE_MARKER, fakeId, fillSchema, isRecord } from '../fake-text.js';

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isRecord(p) && typeof p['text'] === 'string' ? p['text'] : '')).join(' ');
  return '';
}

/** What the answer is made of: an optional reasoning item, then a message or a function call. */
interface Plan {
  readonly reasoning: { readonly id: string; readonly summary: string | null; readonly encrypted: string | null } | null;
  readonly call: { readonly id: string; readonly callId: string; readonly name: string; readonly arguments: string } | null;
  readonly message: { readonly id: string; readonly text: string } | null;
  readonly usage: Json;
  readonly truncated: boolean;
}

function plan(b: Json, input: readonly Json[]): Plan {
  const user = input.filter((i) => i['role'] === 'user').map((i) => textOf(i['content'])).join('\n');
  const last = input.at(-1);
  const maxTokens = Number(b['max_output_tokens'] ?? 4096);
  const include = Array.isArray(b['include']) ? b['include'] : [];
  const reasoningAsked = isRecord(b['reasoning']) || include.includes('reasoning.encrypted_content');
  const carried = input.filter((i) => i['type'] === 'reasoning').length;
  const summaryAsked = isRecord(b['reasoning']) && b['reasoning']['summary'] != null;
  const reasoning = reasoningAsked
    ? { id: fakeId('rs_'), summary: summaryAsked ? `Thinking about: ${user.slice(0, 60)}` : null, encrypted: include.includes('reasoning.encrypted_content') ? `enc_${carried}` : null }
    : null;
  const tools = (Array.isArray(b['tools']) ? b['tools'] : []).filter(isRecord).filter((t) => t['type'] === 'function');
  const choice = b['tool_choice'];
  const named = isRecord(choice) ? choice['name'] : undefined;
  const tool = last?.['type'] === 'function_call_output' || choice === 'none' ? undefined : tools.find((t) => named === undefined || t['name'] === named);
  const format = isRecord(b['text']) && isRecord(b['text']['format']) ? b['text']['format'] : null;
  if (tool && typeof tool['name'] === 'string') {
    const args = JSON.stringify(fillSchema(tool['parameters'], user.split('\n').at(-1) ?? user));
    const call = { id: fakeId('fc_'), callId: `call_fake${input.length}`, name: tool['name'], arguments: args };
    return { reasoning, call, message: null, usage: usageOf(b, input, countTokens(args), reasoning), truncated: false };
  }
  let text: string;
  let tokens: number;
  let truncated = false;
  if (last?.['type'] === 'function_call_output') ({ text, tokens, truncated } = echoReply(textOf(last['output']), maxTokens));
  else if (format?.['type'] === 'json_schema') ({ text, tokens } = { text: JSON.stringify(fillSchema(format['schema'], user)), tokens: 1 });
  else ({ text, tokens, truncated } = echoReply(user, maxTokens));
  return { reasoning, call: null, message: { id: fakeId('msg_'), text }, usage: usageOf(b, input, tokens, reasoning), truncated };
}

function usageOf(b: Json, input: readonly Json[], outputTokens: number, reasoning: Plan['reasoning']): Json {
  const inputTokens = countTokens(typeof b['instructions'] === 'string' ? b['instructions'] : '') + input.reduce((n, i) => n + countTokens(textOf(i['content'] ?? i['output'] ?? i['arguments'] ?? '')), 0);
  const reasoningTokens = reasoning ? 8 : 0;
  const output = outputTokens + reasoningTokens;
  return { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: reasoningTokens }, total_tokens: inputTokens + output };
}

function outputItems(p: Plan): Json[] {
  const items: Json[] = [];
  if (p.reasoning) items.push({ id: p.reasoning.id, type: 'reasoning', summary: p.reasoning.summary !== null ? [{ type: 'summary_text', text: p.reasoning.summary }] : [], ...(p.reasoning.encrypted !== null ? { encrypted_content: p.reasoning.encrypted } : {}) });
  if (p.call) items.push({ id: p.call.id, type: 'function_call', status: 'completed', call_id: p.call.callId, name: p.call.name, arguments: p.call.arguments });
  if (p.message) items.push({ id: p.message.id, type: 'message', status: p.truncated ? 'incomplete' : 'completed', role: 'assistant', content: [{ type: 'output_text', text: p.message.text, annotations: [], logprobs: [] }] });
  return items;
}

/** POST /v1/responses. */
export function createResponse(call: RecordedCall, headers: () => Record<string, string>, error: (status: number, message: string, code: string, param: string) => FakeReply): FakeReply {
  const b = call.body;
  if (!isRecord(b) || typeof b['model'] !== 'string' || b['input'] === undefined) return error(400, "Missing required parameter: 'input'.", 'missing_required_parameter', 'input');
  const input: Json[] = typeof b['input'] === 'string' ? [{ role: 'user', content: b['input'] }] : Array.isArray(b['input']) ? b['input'].filter(isRecord) : [];
  const bad = input.find((i) => i['type'] === 'reasoning' && (typeof i['encrypted_content'] !== 'string' || !Array.isArray(i['summary'])));
  if (bad) return error(400, 'Invalid reasoning item: with store false, a reasoning item needs its encrypted_content and summary.', 'invalid_value', 'input');
  if (input.some((i) => textOf(i['content']).includes(FAKE_REFUSE_MARKER))) return error(400, 'Your request was rejected as a result of our safety system.', 'content_policy_violation', 'input');
  const p = plan(b, input);
  const response = {
    id: fakeId('resp_'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: p.truncated ? 'incomplete' : 'completed',
    incomplete_details: p.truncated ? { reason: 'max_output_tokens' } : null,
    error: null,
    model: b['model'],
    output: outputItems(p),
    usage: p.usage,
  };
  if (b['stream'] !== true) return { headers: headers(), body: response };
  return { headers: { ...headers(), 'content-type': 'text/event-stream' }, body: streamOf(response, p) };
}

/** The response as the reference's event stream. */
function streamOf(response: Json & { output: Json[] }, p: Plan): string {
  let sequence = 0;
  const out: string[] = [];
  const event = (type: string, fields: Json) => out.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  const inProgress = { ...response, status: 'in_progress', output: [], usage: null };
  event('response.created', { response: inProgress });
  event('response.in_progress', { response: inProgress });
  response.output.forEach((item, index) => {
    const id = String(item['id']);
    if (item['type'] === 'reasoning') {
      // The encrypted content comes whole with the item's .done.
      event('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', summary: [] } });
      const summary = p.reasoning?.summary ?? null;
      if (summary !== null) {
        event('response.reasoning_summary_part.added', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: '' } });
        for (const [k, w] of summary.split(' ').entries()) event('response.reasoning_summary_text.delta', { item_id: id, output_index: index, summary_index: 0, delta: k === 0 ? w : ` ${w}` });
        event('response.reasoning_summary_text.done', { item_id: id, output_index: index, summary_index: 0, text: summary });
        event('response.reasoning_summary_part.done', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: summary } });
      }
    } else if (item['type'] === 'function_call') {
      event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
      event('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: item['arguments'] });
      event('response.function_call_arguments.done', { item_id: id, output_index: index, arguments: item['arguments'] });
    } else {
      const text = p.message?.text ?? '';
      event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const [k, w] of text.split(' ').entries()) event('response.output_text.delta', { item_id: id, output_index: index, content_index: 0, delta: k === 0 ? w : ` ${w}`, logprobs: [] });
      event('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
      event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
    }
    event('response.output_item.done', { output_index: index, item });
  });
  event(p.truncated ? 'response.incomplete' : 'response.completed', { response });
  return out.join('');
}
