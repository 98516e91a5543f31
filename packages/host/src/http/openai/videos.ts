import { GatewayError, memberOf, type AuthContext, type BlobStore, type GengateUseCases, type TaskRecord, type TaskStore } from '@gengate/core';
import { isUuid } from '@gengate/core/internal';
import { Router, type Request } from 'express';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';
import { streamFile } from '../routes/files-delivery.js';
import { deleteTaskResults } from '../../storage/delete-task-files.js';
import { outputSource } from '../../storage/output-source.js';
import { resolveModel } from './model-names.js';
import { routingOfForm, servedByTask } from './routing-fields.js';

/*
 * Video jobs in the shape of OpenAI's Videos API (https://platform.openai.com/docs/api-reference/videos:
 * create is multipart/form-data with `model`, `prompt`, `seconds`, `size`; the video object has `id`,
 * `object: "video"`, `status` queued | in_progress | completed | failed, `progress` 0-100, `seconds`, `size`,
 * `created_at`, `completed_at`, `error`; `GET /videos/{id}/content` streams the file). Each job is an
 * ordinary gengate video task (queued, run by the workers): the same id is its task at /api/v1/run/tasks/{id}.
 */

const MAX_FORM_BYTES = 1_048_576;

/** OpenAI's sizes as gengate's aspect ratio and resolution. */
const SIZES: Readonly<Record<string, { aspect_ratio: string; resolution: string }>> = {
  '1280x720': { aspect_ratio: '16:9', resolution: '720p' },
  '720x1280': { aspect_ratio: '9:16', resolution: '720p' },
  '1920x1080': { aspect_ratio: '16:9', resolution: '1080p' },
  '1080x1920': { aspect_ratio: '9:16', resolution: '1080p' },
  '720x720': { aspect_ratio: '1:1', resolution: '720p' },
  '1080x1080': { aspect_ratio: '1:1', resolution: '1080p' },
};
const sizeOf = (aspect: string, resolution: string): string =>
  Object.entries(SIZES).find(([, v]) => v.aspect_ratio === aspect && v.resolution === resolution)?.[0] ?? `${aspect}@${resolution}`;

async function formFields(req: Request): Promise<Record<string, string>> {
  const type = req.headers['content-type'] ?? '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new GatewayError('payload_too_large', `The form is larger than ${MAX_FORM_BYTES} bytes (reference files are not accepted on /v1/videos yet).`);
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  if (/^application\/json/i.test(type)) {
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    } catch {
      throw new GatewayError('invalid_json', 'The body is not a JSON object.');
    }
  }
  if (!/^multipart\/form-data/i.test(type)) throw new GatewayError('unsupported_media_type', 'Send the video job as multipart/form-data (as the OpenAI SDKs do) or JSON.');
  let form: FormData;
  try {
    form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  } catch {
    throw new GatewayError('invalid_body', 'The multipart form could not be read.');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string') throw new GatewayError('unsupported_parameter', `${name}: reference files are not accepted on /v1/videos yet; use POST /api/v1/run with video_params.image_urls.`, { param: name });
    out[name] = value;
  }
  return out;
}

function view(task: TaskRecord, registry: Parameters<typeof servedByTask>[0]): Record<string, unknown> {
  const served = servedByTask(registry, task);
  const vp = (task.request.video_params ?? {}) as { duration?: number; aspect_ratio?: string; resolution?: string };
  const status = task.status === 'waiting' ? 'queued' : task.status === 'generating' ? 'in_progress' : task.status === 'success' ? 'completed' : 'failed';
  return {
    id: task.id,
    object: 'video',
    model: served.model,
    ...(served.provider !== null ? { provider: served.provider } : {}),
    status,
    progress: task.status === 'success' ? 100 : Math.round((task.progress ?? 0) * 100),
    seconds: String(vp.duration ?? ''),
    size: sizeOf(vp.aspect_ratio ?? '16:9', vp.resolution ?? '720p'),
    created_at: Math.floor(task.createdAt.getTime() / 1000),
    completed_at: task.finishedAt && task.status === 'success' ? Math.floor(task.finishedAt.getTime() / 1000) : null,
    expires_at: null,
    error: task.status === 'fail' ? { code: 'generation_failed', message: task.errorMessage ?? 'The generation failed.' } : null,
    remixed_from_video_id: null,
  };
}

export function videosRoutes(deps: {
  gengate: Pick<GengateUseCases, 'registry' | 'submitRun' | 'cancelTask' | 'getTask' | 'roles'>;
  tasks: TaskStore;
  blobs: BlobStore;
  aliases: Readonly<Record<string, string>>;
}): Router {
  const router = Router();
  // A video job of the caller's organization that the caller may see (a `member`: their own), else a 404.
  const find = async (req: Request, auth: AuthContext): Promise<TaskRecord> => {
    const id = req.params['video_id'];
    const task = typeof id === 'string' && isUuid(id) ? await deps.tasks.findForUser(id.toLowerCase(), auth.userId) : null;
    if (!task || task.modality !== 'video' || !(await deps.gengate.getTask.visible(auth, task))) throw new GatewayError('not_found', `No video job '${String(id).slice(0, 100)}'.`, { param: 'video_id' });
    return task;
  };
  router
    .route('/videos')
    .post(async (req, res) => {
      const f = await formFields(req);
      const model = resolveModel(deps.gengate.registry, f['model'] ?? '', deps.aliases);
      if (model.modality !== 'video') throw new GatewayError('invalid_request', `${model.id} is a ${model.modality} model; /v1/videos serves video models.`, { param: 'model' });
      const size = f['size'] === undefined ? undefined : SIZES[f['size']];
      if (f['size'] !== undefined && !size) throw new GatewayError('invalid_request', `size must be one of ${Object.keys(SIZES).join(', ')}.`, { param: 'size' });
      const seconds = f['seconds'] === undefined ? undefined : Number(f['seconds']);
      if (seconds !== undefined && !Number.isInteger(seconds)) throw new GatewayError('invalid_request', 'seconds must be a whole number of seconds.', { param: 'seconds' });
      const known = new Set(['model', 'prompt', 'seconds', 'size', 'models', 'provider']);
      const extra = Object.keys(f).find((k) => !known.has(k));
      if (extra) throw new GatewayError('unsupported_parameter', `${extra} is not accepted on /v1/videos.`, { param: extra });
      const videoParams = { ...(seconds !== undefined ? { duration: seconds } : {}), ...(size ?? {}) };
      const auth = authOf(res);
      const key = req.get('Idempotency-Key');
      const accepted = await deps.gengate.submitRun.execute(auth, model.id, { prompt: f['prompt'], video_params: videoParams, ...routingOfForm(f) }, key !== undefined && /^[\x21-\x7e]{1,255}$/.test(key) ? { idempotencyKey: key } : {});
      const task = await deps.tasks.findForUser(accepted.task_id, auth.userId);
      if (!task) throw new Error('the accepted task is missing');
      res.json(view(task, deps.gengate.registry));
    })
    .get(async (req, res) => {
      const auth = authOf(res);
      const limit = Math.min(100, Math.max(1, Number(req.query['limit'] ?? 20) || 20));
      const after = typeof req.query['after'] === 'string' ? req.query['after'] : null;
      const all: TaskRecord[] = [];
      const filter = (await deps.gengate.roles.seesOwnOnly(auth)) ? { modalities: ['video' as const], memberId: memberOf(auth) } : { modalities: ['video' as const] };
      for (let page = 1; all.length < 10_000; page++) {
        const p = await deps.tasks.listForUser(auth.userId, filter, page, 100);
        all.push(...p.items);
        if (p.items.length < 100) break;
      }
      if (req.query['order'] === 'asc') all.reverse();
      const start = after === null ? 0 : all.findIndex((t) => t.id === after) + 1;
      const data = all.slice(start, start + limit);
      res.json({ object: 'list', data: data.map((t) => view(t, deps.gengate.registry)), first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < all.length });
    })
    .all(methodNotAllowed('GET', 'POST'));
  router
    .route('/videos/:video_id')
    .get(async (req, res) => {
      res.json(view(await find(req, authOf(res)), deps.gengate.registry));
    })
    .delete(async (req, res) => {
      const auth = authOf(res);
      const task = await find(req, auth);
      // An unfinished job is cancelled (its hold released); a finished one loses its files. The task record stays in the ledger's history.
      if (task.status === 'waiting' || task.status === 'generating') await deps.gengate.cancelTask.execute(auth, task.id);
      else await deleteTaskResults(deps.blobs, deps.tasks, task.id);
      res.json({ id: task.id, object: 'video.deleted', deleted: true });
    })
    .all(methodNotAllowed('GET', 'DELETE'));
  router.get('/videos/:video_id/content', async (req, res) => {
    const task = await find(req, authOf(res));
    const output = task.status === 'success' ? task.outputs[0] : undefined;
    if (!output) throw new GatewayError('not_found', `The video job ${task.id} has no content (${view(task, deps.gengate.registry)['status'] as string}).`, { param: 'video_id' });
    const source = outputSource(deps.blobs, task, output);
    if (!(await source.stat(output.key))) throw new GatewayError('not_found', `The content of video job ${task.id} was deleted.`, { param: 'video_id' });
    await streamFile(req, res, source, output.key, 'private, max-age=0');
  });
  return router;
}
