import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { modalitySchema, type Modality } from '../model/modality.js';
import { TASK_STATUSES, type TaskRecord, type TaskView, type TaskWarning } from '../model/task.js';
import type { ResultUrlResolver } from '../ports/blob-store.js';
import type { TaskStore } from '../ports/stores.js';
import { microToCredits } from '../util/money.js';
import type { AuthContext } from './auth-context.js';
import { CallerRoles } from './caller-roles.js';
import { memberOf } from './organizations/role-check.js';
import { NO_ORGANIZATION_STORE } from '../ports/no-organization-store.js';
import { pageQuerySchema } from './pagination.js';
import { toTaskView } from './task-view.js';

const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item)]).optional();

/** GET /run/tasks query: page, per_page, and repeatable `status`, `model` and `modality` filters (repetition means OR). */
export const listTasksQuerySchema = pageQuerySchema.extend({
  status: oneOrMany(z.enum(TASK_STATUSES)),
  model: oneOrMany(z.string().min(1).max(200)),
  modality: oneOrMany(modalitySchema),
});

const PROMPT_PREVIEW_CHARS = 200;

/** A listed task: the Task resource plus what a list needs to show it without fetching each one. */
export interface TaskListItemView extends TaskView {
  model_id: string;
  modality: Modality;
  /** The first 200 characters of the prompt, or null when the request had none. */
  prompt: string | null;
  /** Credits held at submission (the quote). */
  quoted_credits: number;
  /** Credits still held: the quote while the task is unfinished, else 0. */
  held_credits: number;
  /** Credits charged: set when the task succeeded, else null (a failed task is not charged). */
  charged_credits: number | null;
  /** Parameters the upstream ignored or adjusted. */
  warnings: TaskWarning[];
  /** Where the finished task is posted, when the request gave one. */
  callback_url: string | null;
  /** True when the task was submitted with an API key, false from the dashboard or another seam. */
  submitted_with_api_key: boolean;
  started_at: string | null;
  finished_at: string | null;
}

export interface TaskListView {
  data: TaskListItemView[];
  total: number;
  page: number;
  per_page: number;
}

const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export function toTaskListItem(task: TaskRecord, urls: ResultUrlResolver): TaskListItemView {
  const unfinished = task.status === 'waiting' || task.status === 'generating';
  const prompt = typeof task.request.prompt === 'string' ? task.request.prompt.slice(0, PROMPT_PREVIEW_CHARS) : null;
  return {
    ...toTaskView(task, urls),
    model_id: task.modelId,
    modality: task.modality,
    prompt,
    quoted_credits: microToCredits(task.quotedMicro),
    held_credits: unfinished ? microToCredits(task.quotedMicro) : 0,
    charged_credits: task.status === 'success' ? microToCredits(task.chargedMicro ?? 0) : null,
    warnings: [...task.warnings],
    callback_url: task.callbackUrl,
    submitted_with_api_key: task.apiKeyId !== null,
    started_at: task.startedAt?.toISOString() ?? null,
    finished_at: task.finishedAt?.toISOString() ?? null,
  };
}

/**
 * GET /run/tasks (gengate extension): the tasks of the caller's organization, newest first, paged and
 * filtered; a caller whose role is `member` lists only the tasks they submitted.
 */
@injectable()
export class ListTasks {
  constructor(
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(TOKENS.ResultUrls) private readonly urls: ResultUrlResolver,
    @inject(CallerRoles) private readonly roles: CallerRoles = new CallerRoles(NO_ORGANIZATION_STORE),
  ) {}

  async execute(auth: AuthContext, rawQuery: unknown): Promise<TaskListView> {
    const parsed = listTasksQuerySchema.safeParse(rawQuery);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const q = parsed.data;
    const ownOnly = await this.roles.seesOwnOnly(auth);
    const filter = { statuses: list(q.status), modelIds: list(q.model), modalities: list(q.modality), ...(ownOnly ? { memberId: memberOf(auth) } : {}) };
    const result = await this.tasks.listForUser(auth.userId, filter, q.page, q.per_page);
    return { data: result.items.map((t) => toTaskListItem(t, this.urls)), total: result.total, page: q.page, per_page: q.per_page };
  }
}
