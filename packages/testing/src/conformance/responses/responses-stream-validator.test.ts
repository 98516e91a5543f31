import { describe, expect, it } from 'vitest';
import { parseResponsesSse, validateResponsesStream } from './responses-stream-validator.js';

const response = (status: string, extra: Record<string, unknown> = {}) => ({ id: 'resp_1', object: 'response', status, output: [], ...extra });
const usage = { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 5 };
const message = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi there', annotations: [] }] };
const call = { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'f', arguments: '{"a":1}' };

/** A stream as the reference orders it: a text message, then a function call. */
function valid(): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: response('in_progress') },
    { type: 'response.in_progress', response: response('in_progress') },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi ' },
    { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'there' },
    { type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hi there' },
    { type: 'response.content_part.done', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Hi there' } },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.output_item.added', output_index: 1, item: { ...call, status: 'in_progress', arguments: '' } },
    { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{"a":' },
    { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '1}' },
    { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1, arguments: '{"a":1}' },
    { type: 'response.output_item.done', output_index: 1, item: call },
    { type: 'response.completed', response: response('completed', { output: [message, call], usage }) },
  ];
  return events.map((e, i) => ({ ...e, sequence_number: i }));
}

describe('validateResponsesStream', () => {
  it('accepts a stream in the order and shapes of the reference', () => {
    expect(validateResponsesStream(valid())).toEqual([]);
  });

  it('names each violation: numbering, the wrappers, item bookkeeping and the usage', () => {
    const cases: [string, (e: Record<string, unknown>[]) => unknown[], RegExp][] = [
      ['a missing sequence_number', (e) => e.map((x, i) => (i === 4 ? { ...x, sequence_number: undefined } : x)), /sequence_number is missing/],
      ['a repeated sequence_number', (e) => e.map((x, i) => (i === 5 ? { ...x, sequence_number: 4 } : x)), /does not increase/],
      ['no response.completed', (e) => e.slice(0, -1), /ended without response.completed/],
      ['created not first', (e) => e.slice(1), /first event must be response.created/],
      ['a delta for an unknown item', (e) => e.map((x, i) => (i === 4 ? { ...x, item_id: 'msg_x' } : x)), /never added/],
      ['a done text unlike its deltas', (e) => e.map((x, i) => (i === 6 ? { ...x, text: 'Hi' } : x)), /differs from the concatenated deltas/],
      ['arguments unlike their deltas', (e) => e.map((x, i) => (i === 12 ? { ...x, arguments: '{}' } : x)), /arguments differ/],
      ['completed without usage', (e) => e.map((x, i) => (i === 14 ? { ...x, response: response('completed', { output: [message, call] }) } : x)), /usage is missing/],
      ['a wrong total', (e) => e.map((x, i) => (i === 14 ? { ...x, response: response('completed', { output: [message, call], usage: { ...usage, total_tokens: 9 } }) } : x)), /total_tokens 9/],
      ['an item never done', (e) => e.filter((_, i) => i !== 13), /items never done: fc_1/],
      ['an unknown type', (e) => e.map((x, i) => (i === 5 ? { ...x, type: 'response.text.delta' } : x)), /not an event type/],
      ['an event after the end', (e) => [...e, { type: 'response.output_text.delta', sequence_number: 99 }], /after the terminal/],
      ['a failed response without an error', (e) => [...e.slice(0, 5), { type: 'response.failed', sequence_number: 5, response: response('failed') }], /error with a message/],
    ];
    for (const [name, broken, problem] of cases) expect(validateResponsesStream(broken(valid())).join('\n'), name).toMatch(problem);
  });

  it('accepts a reasoning item with its summary parts and encrypted content, and names a summary unlike its deltas', () => {
    const reasoning = { id: 'rs_1', type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'Think hard' }], encrypted_content: 'enc_0' };
    const withReasoning = (e: Record<string, unknown>[]) => [
      ...e.slice(0, 2),
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
      { type: 'response.reasoning_summary_part.added', item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } },
      { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Think ' },
      { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'hard' },
      { type: 'response.reasoning_summary_text.done', item_id: 'rs_1', output_index: 0, summary_index: 0, text: 'Think hard' },
      { type: 'response.reasoning_summary_part.done', item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: 'Think hard' } },
      { type: 'response.output_item.done', output_index: 0, item: reasoning },
      ...e.slice(2, -1).map((x) => ('output_index' in x ? { ...x, output_index: Number(x['output_index']) + 1 } : x)),
      { type: 'response.completed', response: response('completed', { output: [reasoning, message, call], usage }) },
    ].map((x, i) => ({ ...x, sequence_number: i }));
    expect(validateResponsesStream(withReasoning(valid()))).toEqual([]);
    const events = withReasoning(valid());
    const cases: [string, unknown[], RegExp][] = [
      ['a summary text unlike its deltas', events.map((x, i) => (i === 6 ? { ...x, text: 'Think' } : x)), /done summary text differs/],
      ['a summary delta without its part', events.filter((_, i) => i !== 3), /no open summary part 0/],
      ['an open summary part at the item end', events.filter((_, i) => i !== 7), /summary part of rs_1 is still open/],
      ['a done item unlike the streamed summary', events.map((x, i) => (i === 8 ? { ...x, item: { ...reasoning, summary: [] } } : x)), /summary differs from the stream/],
      ['summary events on a message', [...events.slice(0, 11), { type: 'response.reasoning_summary_part.added', item_id: 'msg_1', output_index: 1, summary_index: 0 }, ...events.slice(11)].map((x, i) => ({ ...x, sequence_number: i })), /not a reasoning item/],
    ];
    for (const [name, broken, problem] of cases) expect(validateResponsesStream(broken).join('\n'), name).toMatch(problem);
  });

  it('accepts a failed stream with open items and its error', () => {
    const failed = [...valid().slice(0, 5), { type: 'response.failed', sequence_number: 5, response: response('failed', { error: { code: 'server_error', message: 'broke' } }) }];
    expect(validateResponsesStream(failed)).toEqual([]);
  });

  it('parses server-sent events, skipping comments, and flags an event name unlike the data type and a [DONE]', () => {
    const body = ': keep-alive\n\nevent: response.created\ndata: {"type":"response.created"}\n\nevent: response.done\ndata: {"type":"response.completed"}\n\ndata: [DONE]\n\n';
    const { events, problems } = parseResponsesSse(body);
    expect(events).toEqual([{ type: 'response.created' }, { type: 'response.completed' }]);
    expect(problems).toEqual(['event: response.done carries data of type response.completed', 'a Responses stream has no [DONE] sentinel: it ends with its terminal event']);
  });
});
