import type { RouteAttempt } from '../model/routing.js';
import type { RouteAttemptView, TaskRecord, TaskView, TaskViewSource } from '../model/task.js';
import type { ResultUrlResolver } from '../ports/blob-store.js';

/** The task's request carried routing fields (`provider`, `models`): its view shows the route even on a provider model. */
export function asksForRouting(task: { readonly request: Pick<TaskRecord['request'], 'provider' | 'models'> }): boolean {
  return task.request.provider !== undefined || task.request.models !== undefined;
}

export function toTaskView(task: TaskViewSource, urls: ResultUrlResolver): TaskView {
  const view: TaskView = {
    task_id: task.id,
    status: task.status,
    result_urls: task.status === 'success' ? task.outputs.map((o) => urls.urlFor(o.key)) : [],
    error_message: task.status === 'fail' ? (task.errorMessage ?? 'generation failed') : null,
    created_at: task.createdAt.toISOString(),
  };
  if (task.status === 'generating' && task.progress !== null) view.progress = task.progress;
  // The route and the attempt log are shown for a routed task: a routed model's, one that ran on another
  // model (a fallback in `models`), or one whose request carried routing fields. A provider model's task
  // without them answers exactly the interface document's Task.
  const attempts = task.routeAttempts ?? [];
  const routed = attempts.some((a) => a.route !== task.modelId) || asksForRouting(task);
  if (!routed || attempts.length === 0) return view;
  const route = task.routeId ? attempts.findLast((a) => a.route === task.routeId) : undefined;
  if (task.routeId && route) view.route = { id: task.routeId, provider: route.provider };
  view.extensions = { attempts: attempts.map(toAttemptView) };
  return view;
}

export function toAttemptView(a: RouteAttempt): RouteAttemptView {
  return {
    route: a.route,
    provider: a.provider,
    outcome: a.outcome,
    error_class: a.errorClass,
    upstream_status: a.upstreamStatus,
    started_at: a.startedAt.toISOString(),
    ended_at: a.endedAt.toISOString(),
  };
}
