import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { isUpstreamError, UpstreamError, type InlineAttempt, type InlineRun, type RouteCandidate } from '@gengate/core';
import type { GenerationResult } from '@gengate/core/adapter';

/** What a dialect adds to a call: its own view of every part (Anthropic's blocks) and warnings for the task. */
export interface ChatCallExtras {
  readonly onPart?: (part: LanguageModelV4StreamPart) => void;
  readonly warnings?: readonly { readonly param: string; readonly message: string }[];
  /** Files stored after the answer's own, from the settled answer (a stored /v1/responses answer keeps its conversation so). */
  readonly files?: (acc: ChatAccumulator, usage: ChatUsage, end: CallEnd) => GenerationResult['files'];
  /** The language model to call on a route, when the dialect asks the adapter for a particular one (default: `languageModel(routeId)`). */
  readonly modelFor?: (attempt: InlineAttempt) => LanguageModelV4;
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
  /** The route that answered (its first byte reached the client), or null when none did. */
  readonly route: RouteCandidate | null;
}

/** Parts that say nothing to the client: held back until the first real part, so an attempt can still fail over. */
const SILENT = new Set<LanguageModelV4StreamPart['type']>(['stream-start', 'response-metadata', 'raw']);

/**
 * Runs the upstream chat call of an inline task over its candidate routes (issue 21): `doStream` on a
 * route's language model with the task's signal. Until the first part that the client would see, a failure
 * (connection refused, 5xx, 429, an error part) is reported to the run and, when its policy allows, the
 * next candidate is tried, invisibly to the client; `onOpen(route)` is called with the route whose first
 * real part arrived, then every part is handed to `onDelta`. After that there is no fallback: the task is
 * settled once, from the upstream's reported usage; on a client disconnect, a revocation or a broken
 * upstream after output, from the input plus the output counted so far, at the answering route's price;
 * nothing when no route produced anything.
 */
export async function runChatCall(
  run: InlineRun,
  options: LanguageModelV4CallOptions,
  signals: { readonly clientGone: AbortSignal; readonly revoked: AbortSignal },
  onDelta: (delta: Record<string, unknown>, acc: ChatAccumulator) => void,
  onOpen: (route: RouteCandidate) => void = () => undefined,
  mode: 'stream' | 'generate' = 'stream',
  extras: ChatCallExtras = {},
): Promise<ChatCallOutcome> {
  let acc = new ChatAccumulator();
  const abortSignal = AbortSignal.any([run.signal, signals.clientGone, signals.revoked]);
  let end: CallEnd = 'upstream_error';
  let error: UpstreamError | null = null;
  let answering: InlineAttempt | null = null;
  let tried = 0;
  for (const route of run.candidates) {
    const attempt = await run.attempt(route);
    if (!attempt) continue;
    tried++;
    acc = new ChatAccumulator();
    let opened = false;
    const pending: LanguageModelV4StreamPart[] = [];
    const take = (part: LanguageModelV4StreamPart): void => {
      const delta = acc.add(part);
      if (acc.error !== null) return;
      extras.onPart?.(part);
      if (delta) onDelta(delta, acc);
    };
    const open = (): void => {
      opened = true;
      answering = attempt;
      onOpen(route);
      for (const p of pending.splice(0)) take(p);
    };
    try {
      const model = extras.modelFor?.(attempt) ?? attempt.adapter.languageModel?.(route.routeId);
      if (!model) throw new Error(`${route.routeId} has no language model`);
      const { stream } = mode === 'stream' ? await model.doStream({ ...options, abortSignal }) : await generatedAsStream(model, { ...options, abortSignal });
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        const part: LanguageModelV4StreamPart = next.value;
        if (!opened) {
          if (part.type === 'error') throw part.error;
          if (SILENT.has(part.type)) {
            pending.push(part);
            continue;
          }
          open();
        }
        take(part);
        if (acc.error !== null) break;
      }
      if (!opened) open();
      if (acc.error !== null) throw acc.error;
      if (acc.finish === null) throw new UpstreamError('the provider ended the stream without finishing the answer', { kind: 'network' });
      end = 'completed';
      error = null;
      break;
    } catch (thrown) {
      end = signals.clientGone.aborted ? 'client_gone' : signals.revoked.aborted ? 'revoked' : run.signal.aborted ? 'aborted' : 'upstream_error';
      error = end === 'upstream_error' || end === 'aborted' ? classify(run, attempt, thrown) : null;
      if (opened) {
        // Bytes reached the client: never resubmitted elsewhere; settled below at this route's price.
        if (!acc.produced && error) await run.recordAttemptFailure(attempt, error);
        break;
      }
      answering = null;
      if (end !== 'upstream_error' || !error) break;
      const { fallback } = await run.recordAttemptFailure(attempt, error);
      if (!fallback) break;
    }
  }
  if (tried === 0) error = new UpstreamError(`no route of ${run.plan.modelId} is available now (every route's circuit breaker is open)`, { kind: 'server', isRetryable: true });
  const settled = await settle(run, acc, end, error, answering, extras.warnings ?? [], extras.files);
  const route = (answering as InlineAttempt | null)?.route ?? null;
  return { acc, end, error, ...settled, route };
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

function classify(run: InlineRun, attempt: InlineAttempt, thrown: unknown): UpstreamError {
  if (isUpstreamError(thrown)) return thrown;
  if (run.signal.aborted) return new UpstreamError(`the call was stopped: ${String((run.signal.reason as Error | undefined)?.message ?? 'cancelled')}`, { kind: 'timeout' });
  return attempt.adapter.upstreamError?.(thrown) ?? new UpstreamError(thrown instanceof Error ? thrown.message : String(thrown), { kind: 'network' });
}

async function settle(
  run: InlineRun,
  acc: ChatAccumulator,
  end: CallEnd,
  error: UpstreamError | null,
  answering: InlineAttempt | null,
  extraWarnings: NonNullable<ChatCallExtras['warnings']>, extraFiles: ChatCallExtras['files'] = () => []): Promise<Pick<ChatCallOutcome, 'chargedMicro' | 'usage'>> {
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
    const { chargedMicro } = answering ? await run.succeed(result, answering, end === 'upstream_error' && error ? error : undefined) : await run.succeed(result);
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
