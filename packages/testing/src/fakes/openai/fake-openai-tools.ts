/*
 * Tool calls and structured output of the fake OpenAI chat completions, as documented at
 * https://platform.openai.com/docs/guides/function-calling (request `tools[]` of `{ type: "function",
 * function: { name, parameters } }` and `tool_choice`; answer `message.tool_calls[]` of `{ id, type:
 * "function", function: { name, arguments } }` with `finish_reason: "tool_calls"`; a following `tool`
 * message answers a call) and https://platform.openai.com/docs/guides/structured-outputs
 * (`response_format: { type: "json_schema", json_schema: { name, schema } }`: the content is JSON of the schema).
 */
import { fillSchema, isRecord } from '../fake-text.js';

export type FakeChatAnswer =
  | { readonly kind: 'tool_call'; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly kind: 'json'; readonly text: string }
  | { readonly kind: 'tool_result'; readonly text: string }
  | null;

/** What the fake answers beyond its echo: a tool call, a JSON value, or the echo of a tool's result. */
export function toolOrStructured(body: Record<string, unknown>, user: string): FakeChatAnswer {
  const messages = Array.isArray(body['messages']) ? body['messages'].filter(isRecord) : [];
  const last = messages.at(-1);
  if (last?.['role'] === 'tool') return { kind: 'tool_result', text: typeof last['content'] === 'string' ? last['content'] : JSON.stringify(last['content']) };
  const tools = Array.isArray(body['tools']) ? body['tools'].filter(isRecord) : [];
  const choice = body['tool_choice'];
  if (tools.length > 0 && choice !== 'none') {
    const named = isRecord(choice) && isRecord(choice['function']) ? choice['function']['name'] : undefined;
    const tool = tools.map((t) => (isRecord(t['function']) ? t['function'] : {})).find((f) => named === undefined || f['name'] === named);
    if (tool && typeof tool['name'] === 'string') {
      return { kind: 'tool_call', id: `call_fake${messages.length}`, name: tool['name'], arguments: JSON.stringify(fillSchema(tool['parameters'], user)) };
    }
  }
  const format = isRecord(body['response_format']) ? body['response_format'] : null;
  if (format?.['type'] === 'json_schema' && isRecord(format['json_schema'])) return { kind: 'json', text: JSON.stringify(fillSchema(format['json_schema']['schema'], user)) };
  if (format?.['type'] === 'json_object') return { kind: 'json', text: JSON.stringify({ reply: user }) };
  return null;
}
