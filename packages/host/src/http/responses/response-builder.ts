import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ResponseRequest } from './responses-request.js';

/*
 * The answer of POST /v1/responses in OpenAI's shapes, built once for both ways of answering:
 * - the Response object (https://platform.openai.com/docs/api-reference/responses/object): `output` items
 *   (`reasoning` with its summary and, when included, encrypted content; `message` with `output_text` parts;
 *   `function_call`), `status`, `usage` with
 *   `input_tokens_details.cached_tokens`;
 * - its stream (https://platform.openai.com/docs/api-reference/responses-streaming and
 *   https://developers.openai.com/docs/guides/streaming-responses): every event typed and numbered by a
 *   strictly increasing `sequence_number`; `response.created` and `response.in_progress` first, each output
 *   item wrapped in `response.output_item.added` / `.done` (a message's text part in
 *   `response.content_part.added` / `.done` around `response.output_text.delta`s and `.done`; a call's
 *   arguments as `response.function_call_arguments.delta`s and `.done`), then `response.completed` (or
 *   `response.incomplete` when the output budget ran out) carrying the whole response and its `usage`, or
 *   `response.failed` when the upstream broke.
 * The builder reads the chat-dialect deltas the shared call runner hands out (ChatAccumulator's), so the
 * streamed and non-streamed answers come from the same parts.
 */

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The usage the upstream reported (its cache reads and writes are part of the input tokens, its reasoning tokens part of the output tokens). */
export function usageOf(u: { readonly inputTokens: number; readonly outputTokens: number; readonly cacheReadTokens?: number; readonly cacheWriteTokens?: number }, reasoningTokens = 0): ResponsesUsage {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0, cache_write_tokens: u.cacheWriteTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: Math.min(reasoningTokens, u.outputTokens) },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

type TextPart = { type: 'output_text'; text: string; annotations: []; logprobs: [] };
type SummaryPart = { type: 'summary_text'; text: string };
export type OutputItem =
  | { id: string; type: 'message'; status: ItemStatus; role: 'assistant'; content: TextPart[] }
  | { id: string; type: 'function_call'; status: ItemStatus; call_id: string; name: string; arguments: string }
  | { id: string; type: 'reasoning'; status: ItemStatus; summary: SummaryPart[]; encrypted_content?: string };
type ItemStatus = 'in_progress' | 'completed' | 'incomplete';
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseEvent {
  readonly type: string;
  readonly sequence_number: number;
  readonly [field: string]: unknown;
}

type ToolCallDelta = { index: number; id?: string; function: { name?: string; arguments: string } };

/** The fields a Response echoes from its request. */
export function echoedFields(r: ResponseRequest, previousResponseId: string | null): Record<string, unknown> {
  return {
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    metadata: r.metadata ?? {},
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: previousResponseId,
    reasoning: { effort: r.reasoning?.effort ?? null, summary: r.reasoning?.summary ?? null },
    store: r.store ?? true,
    temperature: r.temperature ?? 1,
    text: { format: r.text?.format ?? { type: 'text' }, verbosity: r.text?.verbosity ?? 'medium' },
    tool_choice: typeof r.tool_choice === 'object' ? r.tool_choice : (r.tool_choice ?? 'auto'),
    tools: r.tools ?? [],
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? 'disabled',
    user: r.user ?? null,
  };
}

export class ResponseBuilder {
  private sequence = 0;
  readonly output: OutputItem[] = [];
  /** The open message item (text still coming), by output index. */
  private openMessage: number | null = null;
  /** Open function calls: the chat delta's tool index -> output index. */
  private readonly openCalls = new Map<number, number>();
  /** The open reasoning item (OpenAI's, by its upstream id) and its open stream parts (part id -> summary index, null before any text). */
  private openReasoning: { readonly index: number; readonly itemId: string; readonly parts: Map<string, number | null> } | null = null;

  constructor(
    private readonly taskId: string,
    private readonly base: { readonly model: string; readonly createdAt: number; readonly echoed: Record<string, unknown>; readonly includeEncryptedReasoning?: boolean },
    private readonly emit: (event: ResponseEvent) => void,
  ) {}

  /** The route that answered (issue 21): its model and provider, once known. */
  private served: { readonly model: string; readonly provider: string | null } | null = null;

  get id(): string {
    return `resp_${this.taskId}`;
  }

  /** The route that answered (known at the first byte): the Response names its model and provider, as OpenRouter's answers do. */
  servedBy(served: { readonly model: string; readonly provider: string | null }): void {
    this.served = served;
  }

  /** The Response object as it stands. */
  response(status: ResponseStatus, extra: { usage?: ResponsesUsage | null; error?: { code: string; message: string } | null } = {}): Record<string, unknown> {
    const text = this.output.flatMap((i) => (i.type === 'message' ? i.content.map((p) => p.text) : [])).join('');
    return {
      id: this.id,
      object: 'response',
      created_at: this.base.createdAt,
      status,
      background: false,
      error: extra.error ?? null,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      model: this.served?.model ?? this.base.model,
      ...(this.served?.provider ? { provider: this.served.provider } : {}),
      output: structuredClone(this.output),
      output_text: text,
      ...this.base.echoed,
      usage: extra.usage ?? null,
    };
  }

  private event(type: string, fields: Record<string, unknown>): void {
    this.emit({ type, sequence_number: this.sequence++, ...fields });
  }

  /** `response.created` and `response.in_progress`: the upstream accepted the call. */
  open(): void {
    this.event('response.created', { response: this.response('in_progress') });
    this.event('response.in_progress', { response: this.response('in_progress') });
  }

  /** One chat-dialect delta (`content` or `tool_calls`). */
  add(delta: Record<string, unknown>): void {
    const content = delta['content'];
    if (typeof content === 'string' && content !== '') this.text(content);
    const calls = delta['tool_calls'];
    if (Array.isArray(calls)) for (const c of calls as ToolCallDelta[]) this.toolCall(c);
  }

  /**
   * One reasoning stream part of OpenAI's Responses model (`providerMetadata.openai.itemId` names its item):
   * a `reasoning` output item with its summary parts (`response.reasoning_summary_part.added`/`.done`
   * around `response.reasoning_summary_text.delta`s and `.done`), the encrypted content (taken from the
   * part's end, where the SDK puts the item's final one) shown only when the client included it. Reasoning
   * of other providers (no OpenAI item id) produces no item.
   */
  reasoning(part: LanguageModelV4StreamPart): void {
    if (part.type !== 'reasoning-start' && part.type !== 'reasoning-delta' && part.type !== 'reasoning-end') return;
    const openai = part.providerMetadata?.['openai'];
    const itemId = openai?.['itemId'];
    const encrypted = openai?.['reasoningEncryptedContent'];
    if (part.type === 'reasoning-start') {
      if (typeof itemId !== 'string') return;
      if (this.openReasoning?.itemId !== itemId) this.startReasoning(itemId);
      this.openReasoning?.parts.set(part.id, null);
    }
    const open = this.openReasoning;
    const item = open ? this.output[open.index] : undefined;
    if (!open || item?.type !== 'reasoning' || !open.parts.has(part.id)) return;
    if (typeof encrypted === 'string' && this.base.includeEncryptedReasoning) item.encrypted_content = encrypted;
    if (part.type === 'reasoning-delta' && part.delta !== '') {
      let summaryIndex = open.parts.get(part.id) ?? null;
      if (summaryIndex === null) {
        summaryIndex = item.summary.length;
        open.parts.set(part.id, summaryIndex);
        item.summary.push({ type: 'summary_text', text: '' });
        this.event('response.reasoning_summary_part.added', { item_id: item.id, output_index: open.index, summary_index: summaryIndex, part: { type: 'summary_text', text: '' } });
      }
      const summary = item.summary[summaryIndex];
      if (summary) summary.text += part.delta;
      this.event('response.reasoning_summary_text.delta', { item_id: item.id, output_index: open.index, summary_index: summaryIndex, delta: part.delta });
    }
    if (part.type === 'reasoning-end') this.endSummary(part.id);
  }

  private startReasoning(itemId: string): void {
    this.closeMessage('completed');
    this.closeReasoning('completed');
    const index = this.output.length;
    const item: OutputItem = { id: itemId, type: 'reasoning', status: 'in_progress', summary: [] };
    this.output.push(item);
    this.openReasoning = { index, itemId, parts: new Map() };
    this.event('response.output_item.added', { output_index: index, item: structuredClone(item) });
  }

  /** Ends one reasoning part: its summary text's `.done` events, when it had text. */
  private endSummary(partId: string): void {
    const open = this.openReasoning;
    const item = open ? this.output[open.index] : undefined;
    if (!open || item?.type !== 'reasoning') return;
    const summaryIndex = open.parts.get(partId);
    open.parts.delete(partId);
    const summary = summaryIndex != null ? item.summary[summaryIndex] : undefined;
    if (summaryIndex == null || !summary) return;
    this.event('response.reasoning_summary_text.done', { item_id: item.id, output_index: open.index, summary_index: summaryIndex, text: summary.text });
    this.event('response.reasoning_summary_part.done', { item_id: item.id, output_index: open.index, summary_index: summaryIndex, part: structuredClone(summary) });
  }

  private closeReasoning(status: ItemStatus): void {
    const open = this.openReasoning;
    if (open === null) return;
    for (const partId of [...open.parts.keys()]) this.endSummary(partId);
    this.openReasoning = null;
    const item = this.output[open.index];
    if (item?.type !== 'reasoning') return;
    item.status = status;
    this.event('response.output_item.done', { output_index: open.index, item: structuredClone(item) });
  }

  private text(delta: string): void {
    if (this.openMessage === null) {
      this.closeReasoning('completed');
      const index = this.output.length;
      const item: OutputItem = { id: `msg_${this.taskId}_${index}`, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      this.output.push(item);
      this.openMessage = index;
      this.event('response.output_item.added', { output_index: index, item: structuredClone(item) });
      const part: TextPart = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      item.content.push(part);
      this.event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: structuredClone(part) });
    }
    const index = this.openMessage;
    const item = this.output[index];
    if (item?.type !== 'message' || !item.content[0]) return;
    item.content[0].text += delta;
    this.event('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta, logprobs: [] });
  }

  private toolCall(c: ToolCallDelta): void {
    let index = this.openCalls.get(c.index);
    if (index === undefined) {
      // A new call: the text (or reasoning) before it is complete.
      this.closeMessage('completed');
      this.closeReasoning('completed');
      index = this.output.length;
      const item: OutputItem = { id: `fc_${this.taskId}_${index}`, type: 'function_call', status: 'in_progress', call_id: c.id ?? `call_${this.taskId}_${index}`, name: c.function.name ?? '', arguments: '' };
      this.output.push(item);
      this.openCalls.set(c.index, index);
      this.event('response.output_item.added', { output_index: index, item: structuredClone(item) });
    }
    const item = this.output[index];
    if (item?.type !== 'function_call' || c.function.arguments === '') return;
    item.arguments += c.function.arguments;
    this.event('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: c.function.arguments });
  }

  private closeMessage(status: ItemStatus): void {
    if (this.openMessage === null) return;
    const index = this.openMessage;
    this.openMessage = null;
    const item = this.output[index];
    if (item?.type !== 'message' || !item.content[0]) return;
    const part = item.content[0];
    this.event('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text: part.text, logprobs: [] });
    this.event('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: structuredClone(part) });
    item.status = status;
    this.event('response.output_item.done', { output_index: index, item: structuredClone(item) });
  }

  private closeCalls(status: ItemStatus): void {
    for (const index of [...this.openCalls.values()].sort((a, b) => a - b)) {
      const item = this.output[index];
      if (item?.type !== 'function_call') continue;
      this.event('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
      item.status = status;
      this.event('response.output_item.done', { output_index: index, item: structuredClone(item) });
    }
    this.openCalls.clear();
  }

  /** The Response object as `complete` will end it, without emitting anything (what a stored response keeps). */
  final(truncated: boolean, usage: ResponsesUsage | null): Record<string, unknown> {
    const itemStatus: ItemStatus = truncated ? 'incomplete' : 'completed';
    const response = this.response(truncated ? 'incomplete' : 'completed', { usage });
    const output = response['output'] as OutputItem[];
    for (const item of output) if (item.status === 'in_progress') item.status = itemStatus;
    return response;
  }

  /** Closes every open item and ends with `response.completed` (or `response.incomplete` at the output budget). */
  complete(truncated: boolean, usage: ResponsesUsage | null): Record<string, unknown> {
    const itemStatus: ItemStatus = truncated ? 'incomplete' : 'completed';
    this.closeReasoning(itemStatus);
    this.closeMessage(itemStatus);
    this.closeCalls(itemStatus);
    const response = this.response(truncated ? 'incomplete' : 'completed', { usage });
    this.event(truncated ? 'response.incomplete' : 'response.completed', { response });
    return response;
  }

  /** Ends the stream with `response.failed` (the upstream broke after the stream had started). */
  fail(error: { code: string; message: string }): void {
    this.event('response.failed', { response: this.response('failed', { error }) });
  }
}
