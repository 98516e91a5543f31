import type { LanguageModelV4FinishReason, LanguageModelV4StreamPart } from '@ai-sdk/provider';

/*
 * The answer of POST /v1/chat/completions in OpenAI's shapes:
 * - https://platform.openai.com/docs/api-reference/chat/object (`chat.completion`)
 * - https://platform.openai.com/docs/api-reference/chat-streaming (`chat.completion.chunk`: the first
 *   delta carries the role, then content or tool-call deltas, then a chunk with `finish_reason`; with
 *   `stream_options.include_usage` every chunk has `usage: null` and one more chunk with empty `choices`
 *   carries the usage).
 */

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

/** A chat call's token usage; the cache counts are part of `inputTokens` (priced at the model's cached-input prices). */
export interface ChatUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export function finishReasonOf(f: LanguageModelV4FinishReason): FinishReason {
  switch (f.unified) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** What a stream produced so far: read part by part, turned into chunk deltas on the way. */
export class ChatAccumulator {
  text = '';
  readonly toolCalls: { id: string; name: string; arguments: string }[] = [];
  private readonly toolIndex = new Map<string, number>();
  /** Reported usage; `inputTokens` counts every input token, the cache reads and writes among them too. */
  usage: ChatUsage | null = null;
  /** The reasoning tokens among the output tokens, where the upstream reports them (shown, not priced apart). */
  reasoningTokens = 0;
  finish: FinishReason | null = null;
  rawFinish: string | null = null;
  upstreamModel: string | null = null;
  upstreamId: string | null = null;
  error: unknown = null;

  /** Whether anything was produced (text or a tool call): what decides if a broken call is charged. */
  get produced(): boolean {
    return this.text.length > 0 || this.toolCalls.length > 0;
  }

  /** Reads one part; returns the delta a streaming client gets for it, or null. */
  add(part: LanguageModelV4StreamPart): Record<string, unknown> | null {
    switch (part.type) {
      case 'text-delta':
        if (part.delta === '') return null;
        this.text += part.delta;
        return { content: part.delta };
      case 'tool-input-start': {
        const index = this.toolCalls.length;
        this.toolIndex.set(part.id, index);
        this.toolCalls.push({ id: part.id, name: part.toolName, arguments: '' });
        return { tool_calls: [{ index, id: part.id, type: 'function', function: { name: part.toolName, arguments: '' } } satisfies ToolCallDelta] };
      }
      case 'tool-input-delta': {
        const index = this.toolIndex.get(part.id);
        const call = index === undefined ? undefined : this.toolCalls[index];
        if (index === undefined || !call || part.delta === '') return null;
        call.arguments += part.delta;
        return { tool_calls: [{ index, function: { arguments: part.delta } } satisfies ToolCallDelta] };
      }
      case 'tool-call': {
        // Providers that send the whole call at once (no input deltas) are streamed as one delta.
        const known = this.toolIndex.get(part.toolCallId);
        if (known !== undefined) {
          const call = this.toolCalls[known];
          if (call && call.arguments === '' && part.input !== '') {
            call.arguments = part.input;
            return { tool_calls: [{ index: known, function: { arguments: part.input } } satisfies ToolCallDelta] };
          }
          return null;
        }
        const index = this.toolCalls.length;
        this.toolIndex.set(part.toolCallId, index);
        this.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
        return { tool_calls: [{ index, id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: part.input } } satisfies ToolCallDelta] };
      }
      case 'response-metadata':
        if (part.modelId) this.upstreamModel = part.modelId;
        if (part.id) this.upstreamId = part.id;
        return null;
      case 'finish': {
        this.finish = finishReasonOf(part.finishReason);
        this.rawFinish = part.finishReason.raw ?? part.finishReason.unified;
        const input = part.usage.inputTokens.total;
        const output = part.usage.outputTokens.total;
        const { cacheRead, cacheWrite } = part.usage.inputTokens;
        this.reasoningTokens = part.usage.outputTokens.reasoning ?? 0;
        if (input !== undefined && output !== undefined) {
          this.usage = { inputTokens: input, outputTokens: output, ...(cacheRead ? { cacheReadTokens: cacheRead } : {}), ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}) };
        }
        return null;
      }
      case 'error':
        this.error = part.error;
        return null;
      default:
        return null;
    }
  }

  /** The answer as OpenAI's assistant message. */
  message(): Record<string, unknown> {
    return {
      role: 'assistant',
      content: this.text === '' && this.toolCalls.length > 0 ? null : this.text,
      refusal: null,
      ...(this.toolCalls.length > 0 ? { tool_calls: this.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
    };
  }
}

export function usageView(u: { inputTokens: number; outputTokens: number }): OpenAIUsage {
  return { prompt_tokens: u.inputTokens, completion_tokens: u.outputTokens, total_tokens: u.inputTokens + u.outputTokens };
}

/** Builds the chunks of one streamed answer (same id, created and model on each). */
export class ChunkWriter {
  private provider: string | null = null;

  constructor(
    private readonly id: string,
    private model: string,
    private readonly created: number,
    private readonly includeUsage: boolean,
  ) {}

  /** The route that answered (known at the stream's first byte): every chunk names its model and provider, as OpenRouter's do. */
  servedBy(served: { readonly model: string; readonly provider: string | null }): void {
    this.model = served.model;
    this.provider = served.provider;
  }

  chunk(delta: Record<string, unknown>, finishReason: FinishReason | null = null): string {
    return this.event([{ index: 0, delta, logprobs: null, finish_reason: finishReason }], this.includeUsage ? { usage: null } : {});
  }

  usage(u: OpenAIUsage): string {
    return this.event([], { usage: u });
  }

  private event(choices: unknown[], extra: Record<string, unknown>): string {
    const provider = this.provider !== null ? { provider: this.provider } : {};
    return `data: ${JSON.stringify({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, ...provider, system_fingerprint: null, choices, ...extra })}\n\n`;
  }
}
