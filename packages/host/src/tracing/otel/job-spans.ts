import { context, propagation, ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import type { TaskTrace, TracedJob } from '../host-tracing.js';
import { ATTR } from './gen-ai-attributes.js';
import { ATTEMPT_SPAN, inSpan } from './span-helpers.js';

/**
 * A queue job under its task's trace (the submission's traceparent kept on the task): a
 * `gengate.queue_wait` span from when the job could run to now (its start time given explicitly), then
 * the job itself as `gengate.attempt` (a generation job: one attempt; the upstream-call decorator names
 * its route on it) or `gengate.status_check`, both children of the submission's intake span.
 */
export async function runJobSpans<T>(tracer: Tracer, job: TracedJob, task: TaskTrace | null, run: () => Promise<T>): Promise<T> {
  const parent = task?.traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: task.traceParent }) : ROOT_CONTEXT;
  const common = {
    [ATTR.taskId]: job.taskId,
    ...(task ? { [ATTR.userId]: task.userId, [ATTR.route]: task.modelId } : {}),
  };
  const now = Date.now();
  const readyAt = Math.min(job.readyAt.getTime(), now);
  tracer.startSpan('gengate.queue_wait', { startTime: readyAt, attributes: { ...common, 'gengate.queue': job.kind, 'gengate.queue_wait_ms': now - readyAt } }, parent).end(now);
  const generate = job.kind === 'generate';
  const attempt = task ? (generate ? task.attempts + 1 : task.attempts) : undefined;
  return inSpan(
    tracer,
    generate ? 'gengate.attempt' : 'gengate.status_check',
    {
      attributes: {
        ...common,
        ...(attempt !== undefined ? { [ATTR.attempt]: attempt } : {}),
        ...(job.checkNumber !== undefined ? { [ATTR.checkNumber]: job.checkNumber } : {}),
      },
    },
    (span) => context.with(trace.setSpan(parent, span).setValue(ATTEMPT_SPAN, span), run),
    (_s, outcome) => (typeof outcome === 'string' ? { [ATTR.outcome]: outcome } : {}),
    parent,
  );
}
