import type { TaskRecord, TaskView } from '../model/task.js';
import type { ResultUrlResolver } from '../ports/blob-store.js';

export function toTaskView(task: TaskRecord, urls: ResultUrlResolver): TaskView {
  const view: TaskView = {
    task_id: task.id,
    status: task.status,
    result_urls: task.status === 'success' ? task.outputs.map((o) => urls.urlFor(o.key)) : [],
    error_message: task.status === 'fail' ? (task.errorMessage ?? 'generation failed') : null,
    created_at: task.createdAt.toISOString(),
  };
  if (task.status === 'generating' && task.progress !== null) view.progress = task.progress;
  return view;
}
