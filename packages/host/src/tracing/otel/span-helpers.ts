import { context, createContextKey, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { isUpstreamError } from '@gengate/core';

/** The context key under which a job's attempt span is kept, so the upstream-call decorator can name its route. */
export const ATTEMPT_SPAN = createContextKey('gengate.attempt_span');

/** The attempt span of the job running in this context, if any. */
export function attemptSpan(ctx: Context = context.active()): Span | undefined {
  const s = ctx.getValue(ATTEMPT_SPAN);
  return s === undefined ? undefined : (s as Span);
}

/** Marks a span failed with the error's class (`error.type`: the UpstreamError kind, else the error's name). */
export function recordFailure(span: Span, error: unknown): void {
  const type = isUpstreamError(error) ? error.kind : error instanceof Error ? error.name : 'error';
  span.setAttribute('error.type', type);
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Runs `fn` in a new active span that ends when it settles: failures are recorded and rethrown;
 * `onResult` adds attributes from what `fn` returned.
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
  onResult?: (span: Span, result: T) => Attributes,
  parent: Context = context.active(),
): Promise<T> {
  const span = tracer.startSpan(name, options, parent);
  try {
    const result = await context.with(trace.setSpan(parent, span), () => fn(span));
    if (onResult) span.setAttributes(onResult(span, result));
    return result;
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}
