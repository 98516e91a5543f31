import { trace, type TracerProvider } from '@opentelemetry/api';
import type { HostTracing } from '../host-tracing.js';
import { httpSpanMiddleware } from './http-span.js';
import { runJobSpans } from './job-spans.js';
import { tracedAdapter } from './traced-adapter.js';
import { tracedBlobStore, tracedCompletion, tracedIntake } from './traced-ports.js';

export interface OtelHostTracingOptions {
  /** Default: the global tracer provider (the one `startTracing` or your own SDK set-up registered). */
  readonly tracerProvider?: TracerProvider;
  /** Called by shutdown(): flushes and stops what was started for this tracing. */
  readonly shutdown?: () => Promise<void>;
}

/** HostTracing on the OpenTelemetry API: every span gengate writes, on the tracer named `gengate`. */
export function createOtelHostTracing(options: OtelHostTracingOptions = {}): HostTracing {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer('gengate');
  return {
    http: httpSpanMiddleware(tracer),
    intake: (inner) => tracedIntake(inner, tracer),
    completion: (inner) => tracedCompletion(inner, tracer),
    blobStore: (inner) => tracedBlobStore(inner, tracer),
    adapters: (inner) => inner.map((a) => tracedAdapter(a, tracer)),
    job: (job, task, run) => runJobSpans(tracer, job, task, run),
    shutdown: options.shutdown ?? (async () => undefined),
  };
}
