import { GatewayError, readOutput, type BlobStore, type GengateUseCases, type TaskStore } from '@gengate/core';
import type { Request, Response } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { ChunkWriter, usageView } from './chat-chunks.js';
import { parseChatRequest, toCallOptions, toRunRequest, type ChatCompletionRequest } from './chat-request.js';
import { resolveModel } from './model-names.js';
import { openAIErrorOf } from './openai-errors.js';
import type { RevocationWatch } from './revocation-watch.js';
import { routingOf, servedBy } from './routing-fields.js';
import { runChatCall, type ChatCallOutcome } from './run-chat-call.js';

export interface ChatCompletionsDeps {
  readonly gengate: Pick<GengateUseCases, 'registry' | 'runInline'>;
  readonly tasks: TaskStore;
  readonly blobs: BlobStore;
  readonly revocations: RevocationWatch;
  readonly aliases: Readonly<Record<string, string>>;
  /** Interval of `: keep-alive` comments on an open stream. */
  readonly keepAliveMs: number;
}

const NO_SIGNAL = new AbortController().signal;

/**
 * POST /v1/chat/completions: one inline gengate task per call (held before the upstream is called,
 * settled after its last part or at the disconnect), answered as OpenAI's completion, or streamed as its
 * server-sent chunks (https://platform.openai.com/docs/api-reference/chat-streaming).
 */
export function chatCompletions(deps: ChatCompletionsDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const body = parseChatRequest(req.body);
    const model = resolveModel(deps.gengate.registry, body.model, deps.aliases);
    if (model.modality !== 'chat') throw new GatewayError('invalid_request', `${model.id} is a ${model.modality} model; /v1/chat/completions serves chat models.`, { param: 'model' });
    const streamed = body.stream === true;
    const key = req.get('Idempotency-Key');
    if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new GatewayError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { param: 'Idempotency-Key' });
    }
    if (!deps.gengate.registry.adapterFor(model.id).languageModel) {
      throw new GatewayError('invalid_request', `${model.id} is served by an adapter without streaming (adapter contract before v3); use POST /api/v1/run/${model.id}.`, { param: 'model' });
    }
    const auth = authOf(res);
    const start = await deps.gengate.runInline.begin(auth, model.id, { ...toRunRequest(body), ...routingOf(body) }, {
      ...(key !== undefined && !streamed ? { idempotencyKey: key } : {}),
      fingerprint: body,
    });
    if (start.kind === 'replay') {
      res.json(await replay(deps, start.taskId, auth.userId));
      return;
    }
    const run = start.run;
    res.setHeader('x-gengate-task-id', run.taskId);
    const clientGone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort(new Error('client closed the connection'));
    });
    const watch = auth.apiKeyId !== null ? deps.revocations.watch(auth.apiKeyId, auth.userId) : { signal: NO_SIGNAL, stop: () => undefined };
    const id = `chatcmpl-${run.taskId}`;
    const created = Math.floor(Date.now() / 1000);
    const options = toCallOptions(body, run.request.modality === 'chat' ? run.request.maxTokens : 1);
    try {
      if (!streamed) {
        const outcome = await runChatCall(run, options, { clientGone: clientGone.signal, revoked: watch.signal }, () => undefined, () => undefined, 'generate');
        answerOnce(res, outcome, id, created, model.id);
        return;
      }
      const writer = new ChunkWriter(id, model.id, created, body.stream_options?.include_usage === true);
      await stream(res, body, deps.keepAliveMs, writer, (onDelta, onOpen) =>
        runChatCall(run, options, { clientGone: clientGone.signal, revoked: watch.signal }, onDelta, (route) => {
          writer.servedBy(servedBy(model.id, route));
          onOpen();
        }),
      );
    } finally {
      watch.stop();
    }
  };
}

function completion(id: string, created: number, requested: string, outcome: ChatCallOutcome): Record<string, unknown> {
  const { acc, usage } = outcome;
  const served = servedBy(requested, outcome.route);
  return {
    id,
    object: 'chat.completion',
    created,
    model: served.model,
    ...(served.provider !== null ? { provider: served.provider } : {}),
    choices: [{ index: 0, message: acc.message(), logprobs: null, finish_reason: acc.finish ?? 'stop' }],
    usage: usage ? usageView(usage) : { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    system_fingerprint: null,
  };
}

function failure(outcome: ChatCallOutcome): GatewayError {
  if (outcome.end === 'revoked') return new GatewayError('authentication_failed', 'The API key was revoked while the call was in flight.');
  return new GatewayError('upstream_error', `The provider failed: ${outcome.error?.message ?? 'the call was interrupted'}.${outcome.chargedMicro > 0 ? ' What it had produced was charged.' : ' No credits were charged.'}`);
}

function answerOnce(res: Response, outcome: ChatCallOutcome, id: string, created: number, model: string): void {
  if (outcome.end === 'client_gone') return;
  if (outcome.end !== 'completed') throw failure(outcome);
  res.json(completion(id, created, model, outcome));
}

type StreamCall = (onDelta: (delta: Record<string, unknown>) => void, onOpen: () => void) => Promise<ChatCallOutcome>;

async function stream(res: Response, body: ChatCompletionRequest, keepAliveMs: number, writer: ChunkWriter, call: StreamCall): Promise<void> {
  let keepAlive: NodeJS.Timeout | null = null;
  const write = (text: string) => {
    if (!res.writableEnded && !res.destroyed) res.write(text);
  };
  const outcome = await call(
    (delta) => write(writer.chunk(delta)),
    () => {
      // The upstream accepted the call: from here on the answer is a 200 stream (errors become an error event).
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      write(writer.chunk({ role: 'assistant', content: '', refusal: null }));
      keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
    },
  ).finally(() => {
    if (keepAlive) clearInterval(keepAlive);
  });
  if (!res.headersSent) {
    // Failed before the upstream accepted the call: an ordinary HTTP error (nothing was charged).
    if (outcome.end !== 'client_gone') throw failure(outcome);
    return;
  }
  if (outcome.end === 'completed') {
    write(writer.chunk({}, outcome.acc.finish ?? 'stop'));
    if (body.stream_options?.include_usage === true && outcome.usage) write(writer.usage(usageView(outcome.usage)));
    write('data: [DONE]\n\n');
  } else if (outcome.end !== 'client_gone') {
    // Never a clean end: the client learns the answer is incomplete.
    write(`data: ${JSON.stringify(openAIErrorOf(failure(outcome)).body)}\n\n`);
  }
  res.end();
}

/** The answer of an earlier call with the same Idempotency-Key, rebuilt from its task. */
async function replay(deps: ChatCompletionsDeps, taskId: string, userId: string): Promise<Record<string, unknown>> {
  const task = await deps.tasks.findForUser(taskId, userId);
  if (!task || task.status !== 'success') {
    throw new GatewayError('conflict', `The earlier call with this Idempotency-Key (task ${taskId}) ${task?.status === 'fail' ? 'failed' : 'is still running'}; use another key to call again.`, {
      param: 'Idempotency-Key',
    });
  }
  const output = task.outputs[0];
  const blob = output ? await readOutput(deps.blobs, task, output) : null;
  const text = blob ? new TextDecoder().decode(blob.data) : '';
  const toolCalls = output?.mediaType === 'application/json' ? (JSON.parse(text) as { id: string; name: string; arguments: string }[]) : [];
  const usage = task.usage?.inputTokens !== undefined && task.usage.outputTokens !== undefined ? { inputTokens: task.usage.inputTokens, outputTokens: task.usage.outputTokens } : null;
  const finish = toolCalls.length > 0 ? 'tool_calls' : task.upstreamMetadata?.finishReason === 'length' ? 'length' : 'stop';
  return {
    id: `chatcmpl-${task.id}`,
    object: 'chat.completion',
    created: Math.floor(task.createdAt.getTime() / 1000),
    model: task.modelId,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
        },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    usage: usage ? usageView(usage) : { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    system_fingerprint: null,
  };
}
