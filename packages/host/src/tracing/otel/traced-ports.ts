import { context, propagation, SpanKind, type Tracer } from '@opentelemetry/api';
import type { BlobBody, BlobStore, TaskCompletion, TaskIntake, TaskIntakeRequest } from '@gengate/core';
import { ATTR, usageAttributes } from './gen-ai-attributes.js';
import { inSpan } from './span-helpers.js';

/** The W3C traceparent of the active context (null when it carries no sampled span). */
export function currentTraceParent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'] ?? null;
}

/** The submission's `gengate.intake` span; its traceparent is kept with the task, so the task's jobs join this trace. */
export function tracedIntake(inner: TaskIntake, tracer: Tracer): TaskIntake {
  return {
    accept: (r: TaskIntakeRequest) =>
      inSpan(
        tracer,
        'gengate.intake',
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [ATTR.taskId]: r.task.id,
            [ATTR.userId]: r.task.userId,
            [ATTR.requestModel]: r.task.modelId,
            [ATTR.providerName]: r.providerId,
            [ATTR.modality]: r.task.modality,
            [ATTR.creditsQuoted]: r.task.quotedMicro,
          },
        },
        () => {
          const traceParent = currentTraceParent();
          return inner.accept(traceParent === null ? r : { ...r, traceParent });
        },
        (_s, result) => ({ [ATTR.outcome]: result.outcome, ...('admitted' in result && typeof result.admitted === 'boolean' ? { 'gengate.admitted': result.admitted } : {}) }),
      ),
  };
}

/** `gengate.settle` spans: the charge (or the release of the hold) with the task's end. */
export function tracedCompletion(inner: TaskCompletion, tracer: Tracer): TaskCompletion {
  return {
    succeed: (c) =>
      inSpan(
        tracer,
        'gengate.settle',
        {
          attributes: {
            [ATTR.taskId]: c.task.id,
            [ATTR.userId]: c.task.userId,
            [ATTR.outcome]: 'success',
            [ATTR.credits]: c.success.chargedMicro,
            [ATTR.costMicroUsd]: c.success.costMicro,
            ...usageAttributes(c.success.usage),
          },
        },
        () => inner.succeed(c),
        (_s, ended) => ({ 'gengate.ended': ended }),
      ),
    fail: (c) =>
      inSpan(
        tracer,
        'gengate.settle',
        { attributes: { [ATTR.taskId]: c.taskId, [ATTR.outcome]: 'fail', [ATTR.credits]: 0 } },
        () => inner.fail(c),
        (_s, ended) => ({ 'gengate.ended': ended !== null }),
      ),
  };
}

/** `gengate.download` spans around storing a result file: a URL's download streams through `put`. */
export function tracedBlobStore(inner: BlobStore, tracer: Tracer): BlobStore {
  const put = (key: string, body: BlobBody, mediaType: string) =>
    inSpan(
      tracer,
      'gengate.download',
      { attributes: { 'gengate.blob.key': key, 'gengate.blob.media_type': mediaType, [ATTR.taskId]: key.split('/')[0] ?? '' } },
      () => inner.put(key, body, mediaType),
      (_s, r) => ({ [ATTR.bytes]: r.bytes }),
    );
  return {
    put,
    get: (key) => inner.get(key),
    stat: (key) => inner.stat(key),
    open: (key, range) => inner.open(key, range),
    ...(inner.presignedUrl ? { presignedUrl: inner.presignedUrl.bind(inner) } : {}),
    deleteTask: (taskId) => inner.deleteTask(taskId),
    delete: (keys) => inner.delete(keys),
  };
}

