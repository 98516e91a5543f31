import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';

/*
 * The answer of POST /v1/messages in Anthropic's shapes, built from the AI SDK's stream parts:
 * - the Message object (https://docs.anthropic.com/en/api/messages): `{ id, type: "message", role:
 *   "assistant", model, content: [text | thinking | redacted_thinking | tool_use], stop_reason,
 *   stop_sequence, usage: { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } }`;
 * - its stream (https://platform.claude.com/docs/build-with-claude/streaming,
 *   https://docs.anthropic.com/en/api/messages-streaming): `message_start` (the Message with empty
 *   content), per block `content_block_start`, `content_block_delta` (`text_delta`, `input_json_delta`,
 *   `thinking_delta`, `signature_delta`) and `content_block_stop` (each with the block's `index` in the
 *   final content), then `message_delta` (`stop_reason`, `stop_sequence`, cumulative `usage`) and
 *   `message_stop`; `ping` events at any point; an `error` event when the stream breaks.
 */

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';
const STOP_REASONS: readonly string[] = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'];

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; json: string };

export interface MessageEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Anthropic's usage from the AI SDK's: `input_tokens` counts the uncached input only, as Anthropic reports it. */
export function anthropicUsage(u: LanguageModelV4Usage | null): AnthropicUsage {
  const read = u?.inputTokens.cacheRead ?? 0;
  const write = u?.inputTokens.cacheWrite ?? 0;
  const total = u?.inputTokens.total ?? 0;
  return { input_tokens: u?.inputTokens.noCache ?? Math.max(0, total - read - write), output_tokens: u?.outputTokens.total ?? 0, cache_creation_input_tokens: write, cache_read_input_tokens: read };
}

const anthropicOf = (meta: unknown): Record<string, unknown> => {
  const a = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['anthropic'] : undefined;
  return typeof a === 'object' && a !== null ? (a as Record<string, unknown>) : {};
};

/** Reads stream parts in order; each call returns the events a streaming client gets for that part. */
export class MessageBuilder {
  private readonly blocks: Block[] = [];
  /** The open block of each stream part id (text, reasoning or tool input). */
  private readonly open = new Map<string, number>();
  private readonly toolBlocks = new Map<string, number>();
  stopReason: StopReason | null = null;
  stopSequence: string | null = null;
  usage: LanguageModelV4Usage | null = null;

  /** The provider of the route that answered (issue 21), once known. */
  provider: string | null = null;

  constructor(
    readonly id: string,
    public model: string,
  ) {}

  /** The route that answered (known at the stream's first byte): the message names its model and provider, as OpenRouter's answers do. */
  servedBy(served: { readonly model: string; readonly provider: string | null }): void {
    this.model = served.model;
    this.provider = served.provider;
  }

  private providerField(): { provider?: string } {
    return this.provider !== null ? { provider: this.provider } : {};
  }

  start(inputEstimate: number): MessageEvent {
    return {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { id: this.id, type: 'message', role: 'assistant', model: this.model, ...this.providerField(), content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputEstimate, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
      },
    };
  }

  add(part: LanguageModelV4StreamPart): MessageEvent[] {
    switch (part.type) {
      case 'text-start':
        return this.begin(part.id, { type: 'text', text: '' });
      case 'text-delta': {
        if (part.delta === '') return [];
        const opened = this.open.has(part.id) ? [] : this.begin(part.id, { type: 'text', text: '' });
        const index = this.open.get(part.id) ?? -1;
        const block = this.blocks[index];
        if (block?.type === 'text') block.text += part.delta;
        return [...opened, this.delta(index, { type: 'text_delta', text: part.delta })];
      }
      case 'reasoning-start': {
        const redacted = anthropicOf(part.providerMetadata)['redactedData'];
        return this.begin(part.id, typeof redacted === 'string' ? { type: 'redacted_thinking', data: redacted } : { type: 'thinking', thinking: '', signature: '' });
      }
      case 'reasoning-delta': {
        // Anthropic's signature_delta arrives as an empty reasoning delta carrying the signature.
        const signature = anthropicOf(part.providerMetadata)['signature'];
        const signed = this.open.get(part.id);
        const target = signed === undefined ? undefined : this.blocks[signed];
        if (typeof signature === 'string' && signed !== undefined && target?.type === 'thinking') {
          target.signature = signature;
          return [this.delta(signed, { type: 'signature_delta', signature })];
        }
        if (part.delta === '') return [];
        const opened = this.open.has(part.id) ? [] : this.begin(part.id, { type: 'thinking', thinking: '', signature: '' });
        const index = this.open.get(part.id) ?? -1;
        const block = this.blocks[index];
        if (block?.type !== 'thinking') return opened;
        block.thinking += part.delta;
        return [...opened, this.delta(index, { type: 'thinking_delta', thinking: part.delta })];
      }
      case 'reasoning-end': {
        const index = this.open.get(part.id);
        const block = index === undefined ? undefined : this.blocks[index];
        const signature = anthropicOf(part.providerMetadata)['signature'];
        const events: MessageEvent[] = [];
        if (index !== undefined && block?.type === 'thinking' && typeof signature === 'string' && block.signature !== signature) {
          block.signature = signature;
          events.push(this.delta(index, { type: 'signature_delta', signature }));
        }
        return [...events, ...this.end(part.id)];
      }
      case 'text-end':
      case 'tool-input-end':
        return this.end(part.id);
      case 'tool-input-start': {
        const events = this.begin(part.id, { type: 'tool_use', id: part.id, name: part.toolName, input: {}, json: '' });
        const index = this.open.get(part.id);
        if (index !== undefined) this.toolBlocks.set(part.id, index);
        return events;
      }
      case 'tool-input-delta': {
        const index = this.open.get(part.id);
        const block = index === undefined ? undefined : this.blocks[index];
        if (index === undefined || block?.type !== 'tool_use' || part.delta === '') return [];
        block.json += part.delta;
        return [this.delta(index, { type: 'input_json_delta', partial_json: part.delta })];
      }
      case 'tool-call': {
        const known = this.toolBlocks.get(part.toolCallId);
        const block = known === undefined ? undefined : this.blocks[known];
        if (known !== undefined && block?.type === 'tool_use') {
          // The whole call after its deltas: the input is final; a provider that sent no deltas sends it now.
          const events: MessageEvent[] = [];
          if (block.json === '' && part.input !== '') {
            block.json = part.input;
            if (this.open.get(part.toolCallId) === known) events.push(this.delta(known, { type: 'input_json_delta', partial_json: part.input }));
          }
          block.input = objectOf(block.json);
          return [...events, ...this.end(part.toolCallId)];
        }
        const events = this.begin(part.toolCallId, { type: 'tool_use', id: part.toolCallId, name: part.toolName, input: objectOf(part.input), json: part.input });
        const index = this.open.get(part.toolCallId) ?? -1;
        this.toolBlocks.set(part.toolCallId, index);
        return [...events, this.delta(index, { type: 'input_json_delta', partial_json: part.input }), ...this.end(part.toolCallId)];
      }
      case 'finish': {
        const events = [...this.open.keys()].flatMap((id) => this.end(id));
        this.usage = part.usage;
        const raw = part.finishReason.raw;
        this.stopReason =
          raw !== undefined && STOP_REASONS.includes(raw)
            ? (raw as StopReason)
            : part.finishReason.unified === 'length'
              ? 'max_tokens'
              : part.finishReason.unified === 'tool-calls'
                ? 'tool_use'
                : part.finishReason.unified === 'content-filter'
                  ? 'refusal'
                  : 'end_turn';
        const sequence = anthropicOf(part.providerMetadata)['stopSequence'];
        if (typeof sequence === 'string') this.stopSequence = sequence;
        return events;
      }
      default:
        return [];
    }
  }

  /** The closing events of a stream that finished: `message_delta` with the stop reason and usage, `message_stop`. */
  finish(): MessageEvent[] {
    const usage = anthropicUsage(this.usage);
    return [
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: this.stopReason ?? 'end_turn', stop_sequence: this.stopSequence }, usage } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
  }

  /** The whole Message (a non-streamed answer). */
  message(): Record<string, unknown> {
    return {
      id: this.id,
      type: 'message',
      role: 'assistant',
      model: this.model,
      ...this.providerField(),
      content: this.blocks.map(publicBlock),
      stop_reason: this.stopReason ?? 'end_turn',
      stop_sequence: this.stopSequence,
      usage: anthropicUsage(this.usage),
    };
  }

  private begin(id: string, block: Block): MessageEvent[] {
    if (this.open.has(id)) return [];
    const index = this.blocks.length;
    this.blocks.push(block);
    this.open.set(id, index);
    // A tool_use block starts with an empty input; its JSON follows as input_json_delta events.
    const shown = block.type === 'tool_use' ? { type: 'tool_use', id: block.id, name: block.name, input: {} } : publicBlock(block);
    return [{ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: shown } }];
  }

  private end(id: string): MessageEvent[] {
    const index = this.open.get(id);
    if (index === undefined) return [];
    this.open.delete(id);
    return [{ event: 'content_block_stop', data: { type: 'content_block_stop', index } }];
  }

  private delta(index: number, delta: Record<string, unknown>): MessageEvent {
    return { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } };
  }
}

function objectOf(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json === '' ? '{}' : json);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function publicBlock(b: Block): Record<string, unknown> {
  if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
  return { ...b };
}

export const sse = (e: MessageEvent): string => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
