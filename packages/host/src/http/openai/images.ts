import { GatewayError, readOutput, isUpstreamError, type BlobStore, type GengateUseCases, type TaskStore } from '@gengate/core';
import { upstreamFailureMessage } from '@gengate/core/internal';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { authOf } from '../middleware/authenticate.js';
import { resolveModel } from './model-names.js';
import { runRoutedInline } from './routed-inline-call.js';
import { ROUTING_FIELDS, routingOf, servedByTask } from './routing-fields.js';

/*
 * POST /v1/images/generations as OpenAI documents it (https://platform.openai.com/docs/api-reference/images/create):
 * `{ created, data: [{ b64_json } | { url }], usage? }`. Run in the API process as an inline gengate task
 * (held, recorded and settled like any run); the files are kept in gengate's blob store, so `url` answers
 * gengate's own result URLs.
 */
const imageRequestSchema = z.strictObject({
  model: z.string().min(1).max(200),
  ...ROUTING_FIELDS,
  prompt: z.string().min(1).max(32_000),
  n: z.number().int().min(1).max(10).nullable().optional(),
  size: z
    .string()
    .regex(/^(auto|\d{2,5}x\d{2,5})$/, "must be 'auto' or WIDTHxHEIGHT, e.g. 1024x1024")
    .nullable()
    .optional(),
  // Accepted for every model: the answer's shape, which gengate produces itself (b64_json by default).
  response_format: z.enum(['b64_json', 'url']).nullable().optional(),
  // The model's own parameters: forwarded as provider_params, refused with a 400 by a model that has none of that name.
  quality: z.string().max(20).nullable().optional(),
  background: z.string().max(20).nullable().optional(),
  output_format: z.string().max(10).nullable().optional(),
  output_compression: z.number().int().min(0).max(100).nullable().optional(),
  moderation: z.string().max(10).nullable().optional(),
  style: z.string().max(20).nullable().optional(),
  user: z.string().max(256).optional(),
});

type ImageRequest = z.infer<typeof imageRequestSchema>;

/** The gengate run request of an image call (what is quoted and recorded on the task). */
function toRunRequest(r: ImageRequest): Record<string, unknown> {
  const params: Record<string, number> = {};
  if (r.n != null) params['n'] = r.n;
  if (r.size != null && r.size !== 'auto') {
    const [w, h] = r.size.split('x').map(Number);
    params['width'] = w ?? 0;
    params['height'] = h ?? 0;
  }
  const provider: Record<string, unknown> = {};
  for (const name of ['quality', 'background', 'output_format', 'output_compression', 'moderation', 'style'] as const) {
    if (r[name] != null) provider[name] = r[name];
  }
  return { prompt: r.prompt, image_params: params, ...(Object.keys(provider).length > 0 ? { provider_params: provider } : {}) };
}

export function imageGenerations(deps: { gengate: Pick<GengateUseCases, 'registry' | 'runInline' | 'getTask'>; tasks: TaskStore; blobs: BlobStore; aliases: Readonly<Record<string, string>> }) {
  return async (req: Request, res: Response): Promise<void> => {
    const parsed = imageRequestSchema.safeParse(req.body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const body = parsed.data;
    const model = resolveModel(deps.gengate.registry, body.model, deps.aliases);
    if (model.modality !== 'image') throw new GatewayError('invalid_request', `${model.id} is a ${model.modality} model; /v1/images/generations serves image models.`, { param: 'model' });
    const auth = authOf(res);
    const key = req.get('Idempotency-Key');
    if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw new GatewayError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { param: 'Idempotency-Key' });
    }
    const start = await deps.gengate.runInline.begin(auth, model.id, { ...toRunRequest(body), ...routingOf(body) }, { ...(key !== undefined ? { idempotencyKey: key } : {}), fingerprint: body });
    let taskId: string;
    if (start.kind === 'replay') taskId = start.taskId;
    else {
      const run = start.run;
      taskId = run.taskId;
      res.setHeader('x-gengate-task-id', taskId);
      const clientGone = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) clientGone.abort(new Error('client closed the connection'));
      });
      try {
        const { result, attempt } = await runRoutedInline(run, clientGone.signal, 10 * 60_000);
        await run.succeed(result, attempt);
      } catch (error) {
        const availability = deps.gengate.registry.availabilityOf(model.id);
        const message = isUpstreamError(error) ? upstreamFailureMessage(error, { provider: model.provider, settings: availability.settings ?? [], secrets: [] }) : 'The image generation failed.';
        await run.fail(`${message} No credits were charged.`, isUpstreamError(error) && error.requestId ? { requestId: error.requestId } : undefined);
        const refused = isUpstreamError(error) && (error.kind === 'invalid_input' || error.kind === 'content_policy');
        throw new GatewayError(refused ? 'invalid_request' : 'upstream_error', `${message} No credits were charged.`);
      }
    }
    res.json(await answer(deps, auth, taskId, body.response_format ?? 'b64_json'));
  };
}

async function answer(
  deps: { gengate: Pick<GengateUseCases, 'getTask' | 'registry'>; tasks: TaskStore; blobs: BlobStore },
  auth: { userId: string; apiKeyId: string | null },
  taskId: string,
  format: 'b64_json' | 'url',
): Promise<Record<string, unknown>> {
  const task = await deps.tasks.findForUser(taskId, auth.userId);
  if (!task || task.status !== 'success') throw new GatewayError('conflict', `The earlier call with this Idempotency-Key (task ${taskId}) did not succeed; use another key.`, { param: 'Idempotency-Key' });
  let data: Record<string, string>[];
  if (format === 'url') data = (await deps.gengate.getTask.execute(auth, taskId)).result_urls.map((url) => ({ url }));
  else {
    data = [];
    for (const o of task.outputs) {
      const blob = await readOutput(deps.blobs, task, o);
      if (blob) data.push({ b64_json: Buffer.from(blob.data).toString('base64') });
    }
  }
  const u = task.usage;
  const usage =
    u?.inputTokens !== undefined && u.outputTokens !== undefined
      ? { usage: { input_tokens: u.inputTokens, output_tokens: u.outputTokens, total_tokens: u.inputTokens + u.outputTokens } }
      : {};
  // The route that served it (issue 21), as OpenRouter names it: the model that answered and its provider.
  const served = servedByTask(deps.gengate.registry, task);
  const route = served.provider !== null ? { model: served.model, provider: served.provider } : {};
  return { created: Math.floor(task.createdAt.getTime() / 1000), data, ...usage, ...route };
}
