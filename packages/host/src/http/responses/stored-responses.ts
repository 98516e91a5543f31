import { GatewayError, readOutput, type AuthContext, type BlobStore, type TaskRecord, type TaskStore } from '@gengate/core';
import { isUuid } from '@gengate/core/internal';
import { type GenerationResult } from '@gengate/core/adapter';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { authOf } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';
import { deleteTaskResults } from '../../storage/delete-task-files.js';
import { inputItemSchema, type InputItem } from './responses-request.js';

/*
 * Stored responses (`store`, true unless the request says false): the response is its gengate task (same
 * owner, retention and deletion as any task), and the task keeps, after the answer's own file, a JSON
 * record of the conversation: the input items the call was made with (those of `previous_response_id`
 * included) and the Response object it answered. GET /v1/responses/{id} answers that object, DELETE
 * deletes the task's files (the task record stays, as the ledger's history), and `previous_response_id`
 * prepends the stored input and output to a new call.
 * https://platform.openai.com/docs/api-reference/responses/get and .../responses/delete.
 */

const RECORD_MEDIA_TYPE = 'application/json';
const recordSchema = z.object({
  gengate_response_record: z.literal(1),
  input: z.array(inputItemSchema),
  response: z.record(z.string(), z.unknown()),
});
const outputSchema = z.object({ output: z.array(inputItemSchema) });
export type StoredResponse = z.infer<typeof recordSchema>;

/** The file that stores a response (appended after the answer's own file). */
export function recordFile(input: readonly InputItem[], response: Record<string, unknown>): GenerationResult['files'][number] {
  const record = { gengate_response_record: 1, input, response };
  return { kind: 'bytes', data: new TextEncoder().encode(JSON.stringify(record)), mediaType: RECORD_MEDIA_TYPE };
}

export interface StoredResponsesDeps {
  readonly tasks: TaskStore;
  readonly blobs: BlobStore;
  /** Whether the caller may see its organization's task (GetTask.visible: a `member` only their own); default: every one. */
  readonly visible?: (auth: AuthContext, task: TaskRecord) => Promise<boolean>;
}

/** The task behind a response id of the caller's organization, or a 404 (another organization's id, or another member's for a `member`, is not found either). */
async function taskOf(deps: StoredResponsesDeps, id: string, auth: AuthContext, param: string): Promise<TaskRecord> {
  const taskId = /^resp_(.+)$/.exec(id)?.[1];
  const task = taskId !== undefined && isUuid(taskId) ? await deps.tasks.findForUser(taskId.toLowerCase(), auth.userId) : null;
  if (!task || task.modality !== 'chat' || (deps.visible && !(await deps.visible(auth, task)))) throw new GatewayError('not_found', `No response '${id.slice(0, 100)}'.`, { param });
  return task;
}

/** The stored conversation of a response, or a 404 when it was not stored, is unfinished, or was deleted. */
export async function loadStored(deps: StoredResponsesDeps, id: string, auth: AuthContext, param = 'response_id'): Promise<StoredResponse> {
  const task = await taskOf(deps, id, auth, param);
  const output = task.status === 'success' ? task.outputs[1] : undefined;
  const blob = output?.mediaType === RECORD_MEDIA_TYPE ? await readOutput(deps.blobs, task, output) : null;
  const parsed = blob ? recordSchema.safeParse(jsonOf(blob.data)) : null;
  if (!parsed?.success) {
    throw new GatewayError('not_found', `The response '${id.slice(0, 100)}' is not stored here (it was made with store: false, is still running, or was deleted).`, { param });
  }
  return parsed.data;
}

function jsonOf(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data)) as unknown;
  } catch {
    return null;
  }
}

/** A stored response's input and output (message and function_call items read as input items), as a continuing call starts with. */
export function conversationOf(stored: StoredResponse): InputItem[] {
  const output = outputSchema.safeParse(stored.response);
  return [...stored.input, ...(output.success ? output.data.output : [])];
}

/** GET and DELETE /v1/responses/{response_id}. */
export function storedResponsesRoutes(deps: StoredResponsesDeps): Router {
  const router = Router();
  router
    .route('/responses/:response_id')
    .get(async (req: Request, res) => {
      const stored = await loadStored(deps, String(req.params['response_id']), authOf(res));
      res.json(stored.response);
    })
    .delete(async (req: Request, res) => {
      const id = String(req.params['response_id']);
      const task = await taskOf(deps, id, authOf(res), 'response_id');
      await loadStored(deps, id, authOf(res));
      await deleteTaskResults(deps.blobs, deps.tasks, task.id);
      res.json({ id, object: 'response', deleted: true });
    })
    .all(methodNotAllowed('GET', 'DELETE'));
  router.get('/responses/:response_id/input_items', async (req: Request, res) => {
    const stored = await loadStored(deps, String(req.params['response_id']), authOf(res));
    const data = stored.input.map((item, i) => ({ id: `item_${i}`, ...item }));
    res.json({ object: 'list', data: [...data].reverse(), first_id: data.at(-1)?.id ?? null, last_id: data[0]?.id ?? null, has_more: false });
  });
  return router;
}
