import { GatewayError, type GengateUseCases, type ModelDescriptor, type ModelRegistry } from '@gengate/core';
import type { Request, Response } from 'express';
import { authOf } from '../middleware/authenticate.js';
import type { RevocationWatch } from '../openai/revocation-watch.js';
import { routingOf, servedBy } from '../openai/routing-fields.js';
import { runChatCall, type ChatCallOutcome } from '../openai/run-chat-call.js';
import { anthropicErrorOf } from './anthropic-errors.js';
import { resolveAnthropicModel } from './anthropic-model-names.js';
import { MessageBuilder, sse, type MessageEvent } from './message-events.js';
import { parseMessagesRequest, toCallOptions, type DroppedParam } from './messages-request.js';
import { toRunRequest } from './messages-run-request.js';

export interface MessagesDeps {
  readonly gengate: Pick<GengateUseCases, 'registry' | 'runInline'>;
  readonly revocations: RevocationWatch;
  readonly aliases: Readonly<Record<string, string>>;
  /** Interval of `ping` events on an open stream. */
  readonly keepAliveMs: number;
}

const NO_SIGNAL = new AbortController().signal;
/** The headers Anthropic's API reads for its version and beta features, forwarded as sent to an Anthropic model. */
const FORWARDED = ['anthropic-version', 'anthropic-beta'] as const;

/** The chat model a Messages call names, refused (400) when it is not one gengate can stream. */
export function messagesModel(registry: ModelRegistry, aliases: Readonly<Record<string, string>>, name: string): ModelDescriptor {
  const model = resolveAnthropicModel(registry, name, aliases);
  if (model.modality !== 'chat') throw new GatewayError('invalid_request', `${model.id} is a ${model.modality} model; /v1/messages serves chat models.`, { param: 'model' });
  if (!registry.adapterFor(model.id).languageModel) {
    throw new GatewayError('invalid_request', `${model.id} is served by an adapter without streaming (adapter contract before v3); use POST /api/v1/run/${model.id}.`, { param: 'model' });
  }
  return model;
}

/**
 * POST /v1/messages: one inline gengate task per call (held before the upstream is called, settled after
 * its last part or at the disconnect), answered as Anthropic's Message or streamed as its events.
 */
export function messages(deps: MessagesDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const body = parseMessagesRequest(req.body);
    const model = messagesModel(deps.gengate.registry, deps.aliases, body.model);
    const anthropic = model.provider === 'anthropic';
    const headers: Record<string, string> = {};
    const dropped: DroppedParam[] = [];
    for (const name of FORWARDED) {
      const value = req.get(name);
      if (value === undefined) continue;
      if (anthropic) headers[name] = value;
      else dropped.push({ param: name, message: `The ${name} header (${value.slice(0, 200)}) was not forwarded: ${model.id} is not an Anthropic model.` });
    }
    // Claude Code asks for 32,000 output tokens whatever the model: above the model's maximum the call gets
    // that maximum (what is held), with a warning on the task, rather than a refusal the agent cannot fix.
    const most = model.capabilities.modality === 'chat' ? model.capabilities.maxOutputTokens : body.max_tokens;
    const maxTokens = Math.min(body.max_tokens, most);
    if (maxTokens < body.max_tokens) dropped.push({ param: 'max_tokens', message: `max_tokens ${body.max_tokens} is above ${model.id}'s maximum of ${most}; the call asked for ${most}.` });
    const { options, dropped: droppedParams } = toCallOptions(body, maxTokens, anthropic);
    const auth = authOf(res);
    const recorded = toRunRequest({ ...body, max_tokens: maxTokens });
    const start = await deps.gengate.runInline.begin(auth, model.id, { ...recorded.body, ...routingOf(body) }, { fingerprint: body, ...(recorded.heldInput !== undefined ? { heldInput: recorded.heldInput } : {}) });
    if (start.kind !== 'started') throw new Error('an inline call without an Idempotency-Key cannot be a replay');
    const run = start.run;
    res.setHeader('x-gengate-task-id', run.taskId);
    res.setHeader('request-id', `req_${run.taskId}`);
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort(new Error('client closed the connection'));
    });
    const watch = auth.apiKeyId !== null ? deps.revocations.watch(auth.apiKeyId, auth.userId) : { signal: NO_SIGNAL, stop: () => undefined };
    const builder = new MessageBuilder(`msg_${run.taskId}`, model.id);
    const signals = { clientGone: clientGone.signal, revoked: watch.signal };
    const warnings = [...dropped, ...droppedParams];
    const call = { ...options, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
    try {
      if (body.stream !== true) {
        const outcome = await runChatCall(run, call, signals, () => undefined, (route) => builder.servedBy(servedBy(model.id, route)), 'stream', { onPart: (p) => void builder.add(p), warnings });
        if (outcome.end === 'client_gone') return;
        if (outcome.end !== 'completed') throw failure(outcome);
        res.json(builder.message());
        return;
      }
      await stream(res, deps.keepAliveMs, builder, (onEvents, onOpen) =>
        runChatCall(
          run,
          call,
          signals,
          () => undefined,
          (route) => {
            builder.servedBy(servedBy(model.id, route));
            onOpen();
          },
          'stream',
          { onPart: (p) => onEvents(builder.add(p)), warnings },
        ),
      );
    } finally {
      watch.stop();
    }
  };
}

function failure(outcome: ChatCallOutcome): GatewayError {
  if (outcome.end === 'revoked') return new GatewayError('authentication_failed', 'The API key was revoked while the call was in flight.');
  const error = outcome.error;
  const charged = outcome.chargedMicro > 0 ? ' What it had produced was charged.' : ' No credits were charged.';
  // As Anthropic answers them, so an agent fixes its request or waits instead of retrying a 502 blindly.
  if (error && (error.kind === 'invalid_input' || error.kind === 'content_policy')) return new GatewayError('invalid_request', `The provider refused the request: ${error.message}.${charged}`);
  if (error?.kind === 'rate_limited') {
    const seconds = Math.max(1, Math.ceil((error.retryAfterMs ?? 1_000) / 1000));
    return new GatewayError('rate_limited', `The provider rate-limited the call: ${error.message}. Retry after ${seconds} s.${charged}`, { headers: { 'Retry-After': String(seconds) } });
  }
  return new GatewayError('upstream_error', `The provider failed: ${outcome.error?.message ?? 'the call was interrupted'}.${outcome.chargedMicro > 0 ? ' What it had produced was charged.' : ' No credits were charged.'}`);
}

type StreamCall = (onEvents: (events: MessageEvent[]) => void, onOpen: () => void) => Promise<ChatCallOutcome>;

async function stream(res: Response, keepAliveMs: number, builder: MessageBuilder, call: StreamCall): Promise<void> {
  let keepAlive: NodeJS.Timeout | null = null;
  const write = (events: MessageEvent[]) => {
    if (!res.writableEnded && !res.destroyed) for (const e of events) res.write(sse(e));
  };
  const ping: MessageEvent = { event: 'ping', data: { type: 'ping' } };
  const outcome = await call(write, () => {
    // The upstream accepted the call: from here on the answer is a 200 stream (errors become an error event).
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    write([builder.start(0), ping]);
    keepAlive = setInterval(() => write([ping]), keepAliveMs);
  }).finally(() => {
    if (keepAlive) clearInterval(keepAlive);
  });
  if (!res.headersSent) {
    // Failed before the upstream accepted the call: an ordinary HTTP error (nothing was charged).
    if (outcome.end !== 'client_gone') throw failure(outcome);
    return;
  }
  if (outcome.end === 'completed') write(builder.finish());
  else if (outcome.end !== 'client_gone') {
    // Never a clean end (no message_stop): the client learns the answer is incomplete.
    const { body } = anthropicErrorOf(failure(outcome));
    write([{ event: 'error', data: { ...body } }]);
  }
  res.end();
}
