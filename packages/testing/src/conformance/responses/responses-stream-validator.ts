/*
 * A checker of a streamed OpenAI Responses answer, written from the API reference:
 * - https://platform.openai.com/docs/api-reference/responses-streaming (the event catalogue: every event has
 *   a `type` and a `sequence_number`; the lifecycle events `response.created`, `response.in_progress`,
 *   `response.completed`, `response.incomplete`, `response.failed` wrap the whole `response`; item events
 *   name their `item_id`, `output_index` and, for content, `content_index`, for a reasoning summary,
 *   `summary_index`);
 * - https://developers.openai.com/docs/guides/streaming-responses (the order: created, in_progress, each
 *   output item added, its content parts added, deltas, `.done` events, the item done, then completed);
 * - https://platform.openai.com/docs/api-reference/responses/object (`usage`: `input_tokens`,
 *   `input_tokens_details.cached_tokens`, `output_tokens`, `output_tokens_details.reasoning_tokens`,
 *   `total_tokens`).
 * It reports every violation it finds (an empty list: the stream is valid), so a test shows them all at once.
 */

const LIFECYCLE = ['response.created', 'response.in_progress', 'response.queued'] as const;
const TERMINAL = ['response.completed', 'response.incomplete', 'response.failed'] as const;
const ITEM_EVENTS = [
  'response.output_item.added',
  'response.output_item.done',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.delta',
  'response.output_text.done',
  'response.output_text.annotation.added',
  'response.refusal.delta',
  'response.refusal.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.delta',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.delta',
  'response.reasoning_text.done',
  'response.custom_tool_call_input.delta',
  'response.custom_tool_call_input.done',
] as const;
const KNOWN = new Set<string>([...LIFECYCLE, ...TERMINAL, ...ITEM_EVENTS, 'error']);

type Json = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

interface ItemState {
  readonly id: string;
  readonly type: string;
  done: boolean;
  /** Text per content index, and whether the part is open. */
  readonly parts: Map<number, { text: string; textDone: boolean; open: boolean }>;
  args: string;
  argsDone: boolean;
  /** A reasoning item's summary parts by summary index. */
  readonly summaries: Map<number, { text: string; textDone: boolean; open: boolean }>;
}

/** Parses a server-sent event body into its events' JSON, checking that an `event:` line, when present, names the data's `type`. */
export function parseResponsesSse(body: string): { events: unknown[]; problems: string[] } {
  const events: unknown[] = [];
  const problems: string[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((l) => l !== '' && !l.startsWith(':'));
    if (lines.length === 0) continue;
    const name = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
    if (data === '[DONE]') {
      problems.push('a Responses stream has no [DONE] sentinel: it ends with its terminal event');
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data) as unknown;
    } catch {
      problems.push(`an event's data is not JSON: ${data.slice(0, 80)}`);
      continue;
    }
    if (name !== undefined && isRecord(parsed) && parsed['type'] !== name) problems.push(`event: ${name} carries data of type ${String(parsed['type'])}`);
    events.push(parsed);
  }
  return { events, problems };
}

function checkUsage(usage: unknown, where: string, problems: string[]): void {
  if (!isRecord(usage)) {
    problems.push(`${where}: response.usage is missing`);
    return;
  }
  const input = usage['input_tokens'];
  const output = usage['output_tokens'];
  const total = usage['total_tokens'];
  if (!isCount(input) || !isCount(output) || !isCount(total)) problems.push(`${where}: usage needs whole input_tokens, output_tokens and total_tokens`);
  else if (total !== input + output) problems.push(`${where}: usage.total_tokens ${total} is not input_tokens + output_tokens (${input + output})`);
  const inDetails = usage['input_tokens_details'];
  if (!isRecord(inDetails) || !isCount(inDetails['cached_tokens'])) problems.push(`${where}: usage.input_tokens_details.cached_tokens is missing`);
  else if (isCount(input) && inDetails['cached_tokens'] > input) problems.push(`${where}: more cached tokens than input tokens`);
  const outDetails = usage['output_tokens_details'];
  if (!isRecord(outDetails) || !isCount(outDetails['reasoning_tokens'])) problems.push(`${where}: usage.output_tokens_details.reasoning_tokens is missing`);
}

/** The violations of the reference in one stream's events (in the order received). */
export function validateResponsesStream(events: readonly unknown[]): string[] {
  const problems: string[] = [];
  const items: ItemState[] = [];
  const byId = new Map<string, ItemState>();
  let lastSequence = -1;
  let responseId: string | null = null;
  let terminal: string | null = null;
  events.forEach((e, i) => {
    const at = `event ${i}`;
    if (!isRecord(e) || typeof e['type'] !== 'string') {
      problems.push(`${at}: not an object with a string type`);
      return;
    }
    const type = e['type'];
    const where = `${at} (${type})`;
    if (!KNOWN.has(type)) problems.push(`${where}: not an event type of the reference`);
    const seq = e['sequence_number'];
    if (!isCount(seq)) problems.push(`${where}: sequence_number is missing or not a whole number`);
    else {
      if (seq <= lastSequence) problems.push(`${where}: sequence_number ${seq} does not increase (last ${lastSequence})`);
      lastSequence = seq;
    }
    if (terminal !== null) problems.push(`${where}: comes after the terminal ${terminal}`);
    if (i === 0 && type !== 'response.created') problems.push(`${where}: the first event must be response.created`);
    if (type === 'response.created' && i !== 0) problems.push(`${where}: response.created must come first`);
    if ((LIFECYCLE as readonly string[]).includes(type) || (TERMINAL as readonly string[]).includes(type)) {
      const response = e['response'];
      if (!isRecord(response) || typeof response['id'] !== 'string' || response['object'] !== 'response') {
        problems.push(`${where}: does not wrap a response object`);
        return;
      }
      if (responseId === null) responseId = response['id'];
      else if (response['id'] !== responseId) problems.push(`${where}: response.id ${response['id']} differs from ${responseId}`);
      const status = response['status'];
      if (type === 'response.in_progress' && items.length > 0) problems.push(`${where}: response.in_progress comes after output items`);
      if ((type === 'response.created' || type === 'response.in_progress') && status !== 'in_progress' && status !== 'queued') problems.push(`${where}: status ${String(status)}`);
      if ((TERMINAL as readonly string[]).includes(type)) {
        terminal = type;
        const expected = type.slice('response.'.length);
        if (status !== expected) problems.push(`${where}: response.status is ${String(status)}, not ${expected}`);
        if (type === 'response.failed') {
          if (!isRecord(response['error']) || typeof response['error']['message'] !== 'string') problems.push(`${where}: response.error with a message is missing`);
        } else {
          checkUsage(response['usage'], where, problems);
          const open = items.filter((it) => !it.done).map((it) => it.id);
          if (open.length > 0) problems.push(`${where}: items never done: ${open.join(', ')}`);
          const output = response['output'];
          const ids = Array.isArray(output) ? output.map((o) => (isRecord(o) ? o['id'] : undefined)) : null;
          if (!ids || ids.join() !== items.map((it) => it.id).join()) problems.push(`${where}: response.output (${String(ids)}) is not the streamed items (${items.map((it) => it.id).join()})`);
          checkFinalItems(output, byId, where, problems);
        }
      }
      return;
    }
    if (type === 'error') {
      terminal = type;
      if (typeof e['message'] !== 'string') problems.push(`${where}: an error event needs a message`);
      return;
    }
    checkItemEvent(e, type, where, items, byId, problems);
  });
  if (events.length === 0) problems.push('the stream has no events');
  else if (terminal === null) problems.push('the stream ended without response.completed, response.incomplete, response.failed or error');
  return problems;
}

function checkItemEvent(e: Json, type: string, where: string, items: ItemState[], byId: Map<string, ItemState>, problems: string[]): void {
  const index = e['output_index'];
  if (!isCount(index)) {
    problems.push(`${where}: output_index is missing`);
    return;
  }
  if (type === 'response.output_item.added') {
    const item = e['item'];
    if (!isRecord(item) || typeof item['id'] !== 'string' || typeof item['type'] !== 'string') {
      problems.push(`${where}: item with an id and a type is missing`);
      return;
    }
    if (index !== items.length) problems.push(`${where}: output_index ${index}, expected the next index ${items.length}`);
    if (byId.has(item['id'])) problems.push(`${where}: item ${item['id']} added twice`);
    const state: ItemState = { id: item['id'], type: item['type'], done: false, parts: new Map(), args: '', argsDone: false, summaries: new Map() };
    items.push(state);
    byId.set(state.id, state);
    return;
  }
  const item = type === 'response.output_item.done' ? (isRecord(e['item']) ? e['item'] : null) : null;
  const id = type === 'response.output_item.done' ? item?.['id'] : e['item_id'];
  const state = typeof id === 'string' ? byId.get(id) : undefined;
  if (!state) {
    problems.push(`${where}: names an item never added (${String(id)})`);
    return;
  }
  if (items[index] !== state) problems.push(`${where}: output_index ${index} is not the index of item ${state.id}`);
  if (state.done) problems.push(`${where}: item ${state.id} is already done`);
  const contentIndex = e['content_index'];
  const part = isCount(contentIndex) ? state.parts.get(contentIndex) : undefined;
  switch (type) {
    case 'response.output_item.done':
      state.done = true;
      if ([...state.parts.values()].some((p) => p.open)) problems.push(`${where}: a content part of ${state.id} is still open`);
      if (state.type === 'function_call' && !state.argsDone) problems.push(`${where}: function_call ${state.id} done without function_call_arguments.done`);
      if (item && item['type'] === 'function_call' && item['arguments'] !== state.args) problems.push(`${where}: the done call's arguments differ from its deltas`);
      if ([...state.summaries.values()].some((p) => p.open)) problems.push(`${where}: a summary part of ${state.id} is still open`);
      if (item && item['type'] === 'reasoning') checkSummary(item, state, where, problems);
      return;
    case 'response.content_part.added':
      if (!isCount(contentIndex)) problems.push(`${where}: content_index is missing`);
      else if (state.parts.has(contentIndex)) problems.push(`${where}: content part ${contentIndex} added twice`);
      else state.parts.set(contentIndex, { text: '', textDone: false, open: true });
      return;
    case 'response.output_text.delta':
    case 'response.refusal.delta':
      if (!part?.open) problems.push(`${where}: no open content part ${String(contentIndex)}`);
      else if (typeof e['delta'] !== 'string') problems.push(`${where}: delta is not a string`);
      else if (part.textDone) problems.push(`${where}: delta after the text's .done`);
      else part.text += e['delta'];
      return;
    case 'response.output_text.done':
    case 'response.refusal.done': {
      const text = type === 'response.output_text.done' ? e['text'] : e['refusal'];
      if (!part?.open) problems.push(`${where}: no open content part ${String(contentIndex)}`);
      else if (text !== part.text) problems.push(`${where}: the done text differs from the concatenated deltas`);
      else part.textDone = true;
      return;
    }
    case 'response.content_part.done': {
      if (!part?.open) problems.push(`${where}: no open content part ${String(contentIndex)}`);
      else {
        part.open = false;
        const p = e['part'];
        if (!isRecord(p) || (p['type'] === 'output_text' && p['text'] !== part.text)) problems.push(`${where}: the done part differs from its deltas`);
      }
      return;
    }
    case 'response.function_call_arguments.delta':
      if (state.type !== 'function_call') problems.push(`${where}: ${state.id} is not a function_call`);
      else if (typeof e['delta'] !== 'string') problems.push(`${where}: delta is not a string`);
      else if (state.argsDone) problems.push(`${where}: delta after function_call_arguments.done`);
      else state.args += e['delta'];
      return;
    case 'response.function_call_arguments.done':
      if (e['arguments'] !== state.args) problems.push(`${where}: arguments differ from the concatenated deltas`);
      state.argsDone = true;
      return;
    case 'response.reasoning_summary_part.added':
    case 'response.reasoning_summary_part.done':
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_summary_text.done':
      checkSummaryEvent(e, type, where, state, problems);
      return;
    default:
      return;
  }
}

/**
 * A reasoning item's summary events (https://platform.openai.com/docs/api-reference/responses-streaming:
 * `response.reasoning_summary_part.added`, `response.reasoning_summary_text.delta`s and `.done`,
 * `response.reasoning_summary_part.done`, each naming its `summary_index`).
 */
function checkSummaryEvent(e: Json, type: string, where: string, state: ItemState, problems: string[]): void {
  if (state.type !== 'reasoning') {
    problems.push(`${where}: ${state.id} is not a reasoning item`);
    return;
  }
  const index = e['summary_index'];
  if (!isCount(index)) {
    problems.push(`${where}: summary_index is missing`);
    return;
  }
  const summary = state.summaries.get(index);
  if (type === 'response.reasoning_summary_part.added') {
    if (summary) problems.push(`${where}: summary part ${index} added twice`);
    else state.summaries.set(index, { text: '', textDone: false, open: true });
    return;
  }
  if (!summary?.open) {
    problems.push(`${where}: no open summary part ${index}`);
    return;
  }
  if (type === 'response.reasoning_summary_text.delta') {
    if (typeof e['delta'] !== 'string') problems.push(`${where}: delta is not a string`);
    else if (summary.textDone) problems.push(`${where}: delta after the summary text's .done`);
    else summary.text += e['delta'];
  } else if (type === 'response.reasoning_summary_text.done') {
    if (e['text'] !== summary.text) problems.push(`${where}: the done summary text differs from the concatenated deltas`);
    summary.textDone = true;
  } else {
    summary.open = false;
    const p = e['part'];
    if (!isRecord(p) || p['type'] !== 'summary_text' || p['text'] !== summary.text) problems.push(`${where}: the done summary part differs from its deltas`);
  }
}

/** A done reasoning item's summary is the streamed one. */
function checkSummary(item: Json, state: ItemState, where: string, problems: string[]): void {
  const summary = item['summary'];
  if (!Array.isArray(summary)) {
    problems.push(`${where}: reasoning item ${state.id} has no summary list`);
    return;
  }
  const streamed = [...state.summaries.entries()].sort(([a], [b]) => a - b).map(([, p]) => p.text);
  const texts = summary.map((p) => (isRecord(p) ? p['text'] : undefined));
  if (texts.join('\u0000') !== streamed.join('\u0000') || texts.length !== streamed.length) problems.push(`${where}: reasoning item ${state.id}'s summary differs from the stream`);
  const encrypted = item['encrypted_content'];
  if (encrypted !== undefined && encrypted !== null && typeof encrypted !== 'string') problems.push(`${where}: encrypted_content is not a string`);
}

function checkFinalItems(output: unknown, byId: ReadonlyMap<string, ItemState>, where: string, problems: string[]): void {
  if (!Array.isArray(output)) return;
  for (const o of output) {
    if (!isRecord(o) || typeof o['id'] !== 'string') continue;
    const state = byId.get(o['id']);
    if (!state) continue;
    if (o['type'] === 'function_call' && o['arguments'] !== state.args) problems.push(`${where}: output ${state.id} arguments differ from the stream`);
    if (o['type'] === 'message' && Array.isArray(o['content'])) {
      o['content'].forEach((c, k) => {
        const streamed = state.parts.get(k)?.text;
        if (isRecord(c) && c['type'] === 'output_text' && c['text'] !== streamed) problems.push(`${where}: output ${state.id} text differs from the stream`);
      });
    }
  }
}
