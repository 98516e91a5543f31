import { setTimeout as sleep } from 'node:timers/promises';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { UpstreamError } from '@gengate/core/adapter';
import { countTokens, replyWords } from './sandbox-chat.js';
import { exampleFor } from './sandbox-json.js';
import { SANDBOX_DROP_MARKER, SANDBOX_FAIL_MARKER, SANDBOX_MODELS } from './sandbox-models.js';

/** What the sandbox answers to one call: text pieces or one tool call, and its usage. */
interface Answer {
  readonly pieces: readonly string[];
  readonly toolCall: { readonly id: string; readonly name: string; readonly input: string } | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly finish: LanguageModelV4FinishReason;
  readonly dropAfter: number | null;
}

/** Pieces emitted before the stream breaks when the prompt carries SANDBOX_DROP_MARKER. */
const DROP_AFTER_PIECES = 3;

/**
 * The sandbox's chat model as an AI SDK `LanguageModelV4`, offline and deterministic: the same answer as
 * its `generate` (the reply to the last user message, counted in whitespace words), streamed word by word
 * over its configured latency. With tools it calls the chosen (or first) tool once with arguments built
 * from the tool's schema, then answers the tool's result; with a JSON response format it answers a value
 * of the schema. `[sandbox:fail]` fails the call before any output; `[sandbox:drop]` breaks the stream
 * after three pieces (a network error part).
 */
export class SandboxLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'sandbox';
  readonly supportedUrls: Record<string, RegExp[]> = {};

  constructor(
    readonly modelId: string,
    private readonly latencyMs: number,
  ) {}

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const answer = this.answer(options);
    await sleep(this.latencyMs, undefined, { signal: options.abortSignal });
    if (answer.dropAfter !== null) throw dropped();
    const content: LanguageModelV4Content[] = answer.toolCall
      ? [{ type: 'tool-call', toolCallId: answer.toolCall.id, toolName: answer.toolCall.name, input: answer.toolCall.input }]
      : [{ type: 'text', text: answer.pieces.join('') }];
    return { content, finishReason: answer.finish, usage: usageOf(answer), warnings: [], response: { id: 'sandbox', modelId: this.modelId } };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const answer = this.answer(options);
    const signal = options.abortSignal;
    const steps = Math.max(1, answer.pieces.length + (answer.toolCall ? 1 : 0));
    const stepMs = this.latencyMs / (steps + 1);
    const parts = this.parts(answer);
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async pull(controller) {
        const next = parts.next();
        if (next.done) return controller.close();
        if (next.value.delay) {
          try {
            await sleep(stepMs, undefined, { signal });
          } catch (error) {
            return controller.error(error);
          }
        }
        controller.enqueue(next.value.part);
        if (next.value.part.type === 'error') controller.close();
      },
    });
    return { stream };
  }

  private *parts(a: Answer): Generator<{ part: LanguageModelV4StreamPart; delay: boolean }> {
    yield { part: { type: 'stream-start', warnings: [] }, delay: false };
    yield { part: { type: 'response-metadata', id: 'sandbox', modelId: this.modelId }, delay: false };
    if (a.toolCall) {
      const { id, name, input } = a.toolCall;
      yield { part: { type: 'tool-input-start', id, toolName: name }, delay: true };
      yield { part: { type: 'tool-input-delta', id, delta: input }, delay: false };
      yield { part: { type: 'tool-input-end', id }, delay: false };
      yield { part: { type: 'tool-call', toolCallId: id, toolName: name, input }, delay: false };
    } else {
      yield { part: { type: 'text-start', id: 'text-0' }, delay: false };
      for (const [i, delta] of a.pieces.entries()) {
        if (a.dropAfter !== null && i === a.dropAfter) {
          yield { part: { type: 'error', error: dropped() }, delay: true };
          return;
        }
        yield { part: { type: 'text-delta', id: 'text-0', delta }, delay: true };
      }
      yield { part: { type: 'text-end', id: 'text-0' }, delay: false };
    }
    yield { part: { type: 'finish', usage: usageOf(a), finishReason: a.finish }, delay: false };
  }

  private answer(options: LanguageModelV4CallOptions): Answer {
    const prompt = options.prompt;
    const all = prompt.map(textOf).join(' ');
    if (this.modelId === SANDBOX_MODELS.fail.id || all.includes(SANDBOX_FAIL_MARKER)) {
      throw new UpstreamError(`The sandbox was asked to fail (model ${SANDBOX_MODELS.fail.id} or a prompt containing ${SANDBOX_FAIL_MARKER}).`, { kind: 'invalid_input' });
    }
    const inputTokens = prompt.reduce((n, m) => n + (textOf(m) === '' ? 0 : countTokens(textOf(m))), 0);
    const last = prompt[prompt.length - 1];
    const lastText = last ? textOf(last) : '';
    const maxTokens = options.maxOutputTokens ?? Number.MAX_SAFE_INTEGER;
    const tool = last?.role === 'tool' ? undefined : chosenTool(options);
    if (tool) {
      const input = JSON.stringify(exampleFor(tool.inputSchema, lastText));
      return { pieces: [], toolCall: { id: `call_sandbox_${prompt.length}`, name: tool.name, input }, inputTokens, outputTokens: countTokens(input), finish: { unified: 'tool-calls', raw: 'tool_calls' }, dropAfter: null };
    }
    const format = options.responseFormat;
    if (format?.type === 'json') {
      const json = JSON.stringify(format.schema ? exampleFor(format.schema, lastText) : { reply: lastText });
      const pieces = json.match(/.{1,12}/gs) ?? [json];
      return { pieces, toolCall: null, inputTokens, outputTokens: countTokens(json), finish: { unified: 'stop', raw: 'stop' }, dropAfter: null };
    }
    const words = replyWords(lastText, maxTokens, last?.role === 'tool' ? 'Sandbox reply to tool result:' : 'Sandbox reply to:');
    const pieces = words.map((w, i) => (i === 0 ? w : ` ${w}`));
    const finish: LanguageModelV4FinishReason = words.length >= maxTokens ? { unified: 'length', raw: 'length' } : { unified: 'stop', raw: 'stop' };
    const dropAfter = all.includes(SANDBOX_DROP_MARKER) ? Math.min(DROP_AFTER_PIECES, pieces.length) : null;
    return { pieces, toolCall: null, inputTokens, outputTokens: words.length, finish, dropAfter };
  }
}

function chosenTool(options: LanguageModelV4CallOptions) {
  const tools = (options.tools ?? []).filter((t) => t.type === 'function');
  const choice = options.toolChoice ?? { type: 'auto' };
  if (choice.type === 'none') return undefined;
  if (choice.type === 'tool') return tools.find((t) => t.name === choice.toolName);
  return tools[0];
}

function dropped(): UpstreamError {
  return new UpstreamError(`The sandbox dropped the stream (a prompt containing ${SANDBOX_DROP_MARKER}).`, { kind: 'network' });
}

function usageOf(a: Answer): LanguageModelV4Usage {
  return {
    inputTokens: { total: a.inputTokens, noCache: a.inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: a.outputTokens, text: a.outputTokens, reasoning: undefined },
  };
}

/** The text of a message: system text, text parts, tool results (as text or JSON). */
function textOf(m: LanguageModelV4Message): string {
  if (m.role === 'system') return m.content;
  const texts: string[] = [];
  for (const part of m.content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'tool-result') texts.push(part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : JSON.stringify('value' in part.output ? part.output.value : ''));
  }
  return texts.join(' ');
}
