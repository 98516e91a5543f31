import { taskWarningsFrom } from '@gengate/adapters/kit';
import { GatewayError, type AuthContext, type BlobStore, type GengateUseCases, type TaskStore, type TaskWarning } from '@gengate/core';
import type { Request, Response } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { resolveModel } from '../openai/model-names.js';
import type { RevocationWatch } from '../openai/revocation-watch.js';
import { routingOf, servedBy } from '../openai/routing-fields.js';
import { runChatCall, type ChatCallExtras, type ChatCallOutcome } from '../openai/run-chat-call.js';
import { echoedFields, ResponseBuilder, usageOf, type ResponseEvent } from './response-builder.js';
import { toCallOptions, toRunRequest } from './responses-prompt.js';
import { droppedReasoningWarnings, passesReasoningItems } from './responses-reasoning.js';
import { inputItems, parseResponseRequest, wantsEncryptedReasoning } from './responses-request.js';
import { conversationOf, loadStored, recordFile, type StoredResponsesDeps } from './stored-responses.js';

export interface CreateResponseDeps {
  readonly gengate: Pick<GengateUseCases, 'registry' | 'runInline'>;
  readonly tasks: TaskStore;
  readonly blobs: BlobStore;
  readonly revocations: RevocationWatch;
  readonly aliases: Readonly<Record<string, string>>;
  /** Interval of `: keep-alive` comments on an open stream. */
  readonly keepAliveMs: number;
  /** Whether the caller may see a stored response's task (a `member`: their own); see StoredResponsesDeps. */
  readonly visible?: StoredResponsesDeps['visible'];
}

const NO_SIGNAL = new AbortController().signal;

function failure(outcome: ChatCallOutcome): GatewayError {
  if (outcome.end === 'revoked') return new GatewayError('authentication_failed', 'The API key was revoked while the call was in flight.');
  return new GatewayError('upstream_error', `The provider failed: ${outcome.error?.message ?? 'the call was interrupted'}.${outcome.chargedMicro > 0 ? ' What it had produced was charged.' : ' No credits were charged.'}`);
}

/**
 * POST /v1/responses: one inline gengate task per call, as /v1/chat/completions runs it (the same key,
 * limits, hold, revocation, settlement and task record), answered as OpenAI's Response object or streamed
 * as its typed, numbered events (see response-builder.ts). Everything the request could be refused for is
 * checked before the task is created: a bad request changes nothing.
 */
export function createResponse(deps: CreateResponseDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const body = parseResponseRequest(req.body);
    const model = resolveModel(deps.gengate.registry, body.model, deps.aliases);
    if (model.modality !== 'chat') throw new GatewayError('invalid_request', `${model.id} is a ${model.modality} model; /v1/responses serves chat models.`, { param: 'model' });
    const adapter = deps.gengate.registry.adapterFor(model.id);
    if (!adapter.languageModel) {
      throw new GatewayError('invalid_request', `${model.id} is served by an adapter without streaming (adapter contract before v3); use POST /api/v1/run/${model.id}.`, { param: 'model' });
    }
    // OpenAI's adapter hands its Responses model here, which takes reasoning items back (responses-reasoning.ts).
    // A routed model asks its first route (each attempt asks its own route's adapter below).
    const languageModel = adapter.languageModel(deps.gengate.registry.routesOf(model.id)[0]?.id ?? model.id, { wire: 'responses' });
    const passThrough = passesReasoningItems(languageModel);
    const auth = authOf(res);
    const previousId = body.previous_response_id ?? null;
    const previous = previousId !== null ? conversationOf(await loadStored(deps, previousId, auth, 'previous_response_id')) : [];
    const items = [...previous, ...inputItems(body)];
    const baseOptions = toCallOptions(body, items, passThrough);
    const warnings: TaskWarning[] = droppedReasoningWarnings(items, passThrough);
    const streamed = body.stream === true;
    const key = req.get('Idempotency-Key');
    if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new GatewayError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { param: 'Idempotency-Key' });
    }
    const runRequest = toRunRequest(body, items);
    const start = await deps.gengate.runInline.begin(auth, model.id, { ...runRequest.body, ...routingOf(body) }, {
      ...(key !== undefined && !streamed ? { idempotencyKey: key } : {}),
      ...(runRequest.heldInput !== undefined ? { heldInput: runRequest.heldInput } : {}),
      fingerprint: body,
    });
    if (start.kind === 'replay') {
      res.json(await replay(deps, start.taskId, auth));
      return;
    }
    const run = start.run;
    res.setHeader('x-gengate-task-id', run.taskId);
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort(new Error('client closed the connection'));
    });
    const watch = auth.apiKeyId !== null ? deps.revocations.watch(auth.apiKeyId, auth.userId) : { signal: NO_SIGNAL, stop: () => undefined };
    const sse = new SseWriter(res, deps.keepAliveMs);
    const builder = new ResponseBuilder(run.taskId, { model: model.id, createdAt: Math.floor(run.task.createdAt.getTime() / 1000), echoed: echoedFields(body, previousId), includeEncryptedReasoning: wantsEncryptedReasoning(body) }, streamed ? (e) => sse.event(e) : () => undefined);
    const options = { ...baseOptions, maxOutputTokens: run.request.modality === 'chat' ? run.request.maxTokens : 1 };
    // A stored response keeps its conversation beside the answer (read back by GET and previous_response_id).
    const files: ChatCallExtras['files'] = (acc, usage, end) => (body.store !== false && end === 'completed' ? [recordFile(items, builder.final(acc.finish === 'length', usageOf(usage, acc.reasoningTokens)))] : []);
    const signals = { clientGone: clientGone.signal, revoked: watch.signal };
    try {
      const outcome = await runChatCall(
        run,
        options,
        signals,
        (delta) => builder.add(delta),
        (route) => {
          builder.servedBy(servedBy(model.id, route));
          if (!streamed) return;
          sse.open();
          builder.open();
        },
        streamed ? 'stream' : 'generate',
        {
          files,
          warnings,
          modelFor: (attempt) => attempt.adapter.languageModel?.(attempt.route.routeId, { wire: 'responses' }) ?? languageModel,
          onPart: (part) => {
            // What the AI SDK ignored or dropped (a setting the model lacks, a reasoning item without its encrypted content) is said on the task.
            if (part.type === 'stream-start') warnings.push(...taskWarningsFrom(part.warnings, 'chat'));
            builder.reasoning(part);
          },
        },
      ).finally(() => sse.stopKeepAlive());
      const usage = outcome.usage ? usageOf(outcome.usage, outcome.acc.reasoningTokens) : null;
      if (!streamed) {
        if (outcome.end === 'client_gone') return;
        if (outcome.end !== 'completed') throw failure(outcome);
        res.json(builder.complete(outcome.acc.finish === 'length', usage));
        return;
      }
      if (!res.headersSent) {
        // Failed before the upstream accepted the call: an ordinary HTTP error (nothing was charged).
        if (outcome.end !== 'client_gone') throw failure(outcome);
        return;
      }
      if (outcome.end === 'completed') builder.complete(outcome.acc.finish === 'length', usage);
      else if (outcome.end !== 'client_gone') {
        const error = failure(outcome);
        builder.fail({ code: error.type === 'authentication_failed' ? 'invalid_api_key' : 'server_error', message: error.message });
      }
      res.end();
    } finally {
      watch.stop();
    }
  };
}

/** The answer of an earlier non-streamed call with the same Idempotency-Key: its stored response. */
async function replay(deps: CreateResponseDeps, taskId: string, auth: AuthContext): Promise<Record<string, unknown>> {
  try {
    return (await loadStored(deps, `resp_${taskId}`, auth)).response;
  } catch {
    throw new GatewayError('conflict', `The earlier call with this Idempotency-Key (response resp_${taskId}) failed, is still running or was not stored; use another key to call again.`, {
      param: 'Idempotency-Key',
    });
  }
}

/** The server-sent events of one streamed response (`event:` naming each one's type, as OpenAI sends them), with keep-alive comments while the output is slow. */
class SseWriter {
  private keepAlive: NodeJS.Timeout | null = null;

  constructor(
    private readonly res: Response,
    private readonly keepAliveMs: number,
  ) {}

  open(): void {
    // The upstream accepted the call: from here on the answer is a 200 stream (errors become response.failed).
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), this.keepAliveMs);
  }

  event(e: ResponseEvent): void {
    this.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  }

  stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = null;
  }

  private write(text: string): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(text);
  }
}
