import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isUpstreamError, UpstreamError, type InlineRun } from '@gengate/core';
import type { GenerationResult } from '@gengate/core/adapter';

/** What a dialect adds to a call: its own view of every part (Anthropic's blocks) and warnings for the task. */
export interface ChatCallExtras {
  readonly onPart?: (part: LanguageModelV4StreamPart) => void;
  readonly warnings?: readonly { readonly param: string; readonly message: string }[];
  /** Files stored after the answer's own, from the settled answer (a stored /v1/responses answer keeps its conversation so). */
  readonly files?: (acc: ChatAccumulator, usage: ChatUsage, end: CallEnd) => GenerationResult['files'];
  /** The language model to call, when the dialect asked the adapter for a particular one (default: `languageModel(modelId)`). */
  readonly model?: LanguageModelV4;
}
import { ChatAccumulator, type ChatUsage } from './chat-chunks.js';

/** Why a call stopped before the upstream's own end. */
export type CallEnd = 'completed' | 'client_gone' | 'revoked' | 'upstream_error' | 'aborted';

/**
 * Roughly 4 characters per token (OpenAI's rule of thumb, https://help.openai.com/en/articles/4936856):
 * the count of what was produced when a broken stream brought no usage. The charge is still capped by the hold.
 */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

export interface ChatCallOutcome {
  readonly acc: ChatAccumulator;
  readonly end: CallEnd;
  readonly error: UpstreamError | null;
  /** What the task was charged (0 when it failed uncharged). */
  readonly chargedMicro: number;
  readonly usage: ChatUsage | null;
}

/**
 * Runs one upstream chat call of an inline task: `doStream` on the adapter's language model with the
 * task's signal, every part handed to `onDelta` as it comes, then the task settled once: from the
 * upstream's reported usage; on a client disconnect, a revocation or a broken upstream after output, from
 * the input plus the output counted so far; nothing when the upstream failed before any output.
 */
export async function runChatCall(
  run: InlineRun,
  options: LanguageModelV4CallOptions,
  signals: { readonly clientGone: AbortSignal; readonly revoked: AbortSignal },
  onDelta: (delta: Record<string, unknown>, acc: ChatAccumulator) => void,
  onOpen: () => void = () => undefined,
  mode: 'stream' | 'generate' = 'stream',
  extras: ChatCallExtras = {},
): Promise<ChatCallOutcome> {
  const acc = new ChatAccumulator();
  const model = extras.model ?? run.adapter.languageModel?.(run.model.id);
  if (!model) throw new Error(`${run.model.id} has no language model`);
  const abortSignal = AbortSignal.any([run.signal, signals.clientGone, signals.revoked]);
  let end: CallEnd = 'completed';
  let error: UpstreamError | null = null;
  try {
    const { stream } = mode === 'stream' ? await model.doStream({ ...options, abortSignal }) : await generatedAsStream(model, { ...options, abortSignal });
    onOpen();
    const reader = stream.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const part: LanguageModelV4StreamPart = next.value;
      const delta = acc.add(part);
      if (acc.error !== null) break;
      extras.onPart?.(part);
      if (delta) onDelta(delta, acc);
    }
    if (acc.error !== null) throw acc.error;
    if (acc.finish === null) throw new UpstreamError('the provider ended the stream without finishing the answer', { kind: 'network' });
  } catch (thrown) {
    end = signals.clientGone.aborted ? 'client_gone' : signals.revoked.aborted ? 'revoked' : run.signal.aborted ? 'aborted' : 'upstream_error';
    if (end === 'upstream_error' || end === 'aborted') error = classify(run, thrown);
  }
  const settled = await settle(run, acc, end, error, extras.warnings ?? [], extras.files);
  return { acc, end, error, ...settled };
}

/** A non-streamed call (`doGenerate`), read through the same parts as a stream. */
async function generatedAsStream(model: LanguageModelV4, options: LanguageModelV4CallOptions): Promise<{ stream: ReadableStream<LanguageModelV4StreamPart> }> {
  const r = await model.doGenerate(options);
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: r.warnings }];
  if (r.response) parts.push({ type: 'response-metadata', ...(r.response.id ? { id: r.response.id } : {}), ...(r.response.modelId ? { modelId: r.response.modelId } : {}) });
  r.content.forEach((c, k) => {
    if (c.type === 'text') parts.push({ type: 'text-delta', id: 'text', delta: c.text });
    else if (c.type === 'tool-call') parts.push(c);
    else if (c.type === 'reasoning') {
      const id = `reasoning-${k}`;
      const meta = c.providerMetadata ? { providerMetadata: c.providerMetadata } : {};
      parts.push({ type: 'reasoning-start', id, ...meta }, { type: 'reasoning-delta', id, delta: c.text }, { type: 'reasoning-end', id, ...meta });
    }
  });
  parts.push({ type: 'finish', usage: r.usage, finishReason: r.finishReason });
  return { stream: new ReadableStream({ start: (controller) => { for (const p of parts) controller.enqueue(p); controller.close(); } }) };
}

function classify(run: InlineRun, thrown: unknown): UpstreamError {
  if (isUpstreamError(thrown)) return thrown;
  if (run.signal.aborted) return new UpstreamError(`the call was stopped: ${String((run.signal.reason as Error | undefined)?.message ?? 'cancelled')}`, { kind: 'timeout' });
  return run.adapter.upstreamError?.(thrown) ?? new UpstreamError(thrown instanceof Error ? thrown.message : String(thrown), { kind: 'network' });
}

async function settle(run: InlineRun, acc: ChatAccumulator, end: CallEnd, error: UpstreamError | null, extraWarnings: NonNullable<ChatCallExtras['warnings']>, extraFiles: ChatCallExtras['files'] = () => []): Promise<Pick<ChatCallOutcome, 'chargedMicro' | 'usage'>> {
  if (end === 'completed' || acc.produced) {
    const req = run.request;
    const promptChars = req.modality === 'chat' ? req.prompt.length + (req.system?.length ?? 0) : 0;
    // Reported usage when the stream finished; otherwise the input (estimated) and the output produced so far.
    const usage = acc.usage ?? { inputTokens: Math.ceil(promptChars / 4), outputTokens: estimateTokens(acc.text) + acc.toolCalls.reduce((n, c) => n + estimateTokens(c.arguments), 0) };
    const warnings = [...extraWarnings, ...(end === 'completed' ? [] : [{ param: 'stream', message: interruptedMessage(end, error) }])];
    const body = acc.text !== '' || acc.toolCalls.length === 0 ? { data: new TextEncoder().encode(acc.text), mediaType: 'text/plain' } : { data: new TextEncoder().encode(JSON.stringify(acc.toolCalls)), mediaType: 'application/json' };
    const result: GenerationResult = {
      files: [{ kind: 'bytes', ...body }, ...extraFiles(acc, usage, end)],
      usage,
      warnings,
      metadata: { ...(acc.upstreamId ? { requestId: acc.upstreamId } : {}), ...(acc.rawFinish ? { finishReason: acc.rawFinish } : {}), ...(acc.upstreamModel ? { model: acc.upstreamModel } : {}) },
    };
    const { chargedMicro } = await run.succeed(result);
    return { chargedMicro, usage };
  }
  await run.fail(failureMessage(end, error));
  return { chargedMicro: 0, usage: null };
}

function interruptedMessage(end: CallEnd, error: UpstreamError | null): string {
  switch (end) {
    case 'client_gone':
      return 'The client closed the stream; the upstream call was stopped and what it had produced was charged.';
    case 'revoked':
      return 'The API key was revoked during the stream; it was stopped and what it had produced was charged.';
    default:
      return `The upstream stream broke (${error?.message ?? 'unknown error'}); what it had produced was charged.`;
  }
}

function failureMessage(end: CallEnd, error: UpstreamError | null): string {
  switch (end) {
    case 'client_gone':
      return 'The client closed the connection before any output; no credits were charged.';
    case 'revoked':
      return 'The API key was revoked before any output; no credits were charged.';
    default:
      return `The provider failed before any output: ${error?.message ?? 'unknown error'}. No credits were charged.`;
  }
}
