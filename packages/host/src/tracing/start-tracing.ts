import type { TracerProvider } from '@opentelemetry/api';
import { importOptional } from '../optional-dependency.js';
import type { HostTracing } from './host-tracing.js';
import { traceExporters, type TraceExporterName } from './tracing-switch.js';

/**
 * gengate's traces as the standard OTEL_* variables ask (see traceExporters): null when they are off, and
 * then nothing of OpenTelemetry is imported. When on, the SDK (optional peer dependencies of the host) is
 * imported here, started and registered globally; pass the result to createGengateHost({ tracing }).
 */
export async function startTracing(env: Readonly<Record<string, string | undefined>> = process.env): Promise<HostTracing | null> {
  return startTracingWith(traceExporters(env));
}

/** startTracing with the exporters already read (the standalone server's configuration); none: null. */
export async function startTracingWith(exporters: readonly TraceExporterName[]): Promise<HostTracing | null> {
  if (exporters.length === 0) return null;
  const { startOtelSdk } = await importOptional('@opentelemetry/sdk-trace-node', () => import('./otel/start-otel-sdk.js'));
  return startOtelSdk(exporters);
}

/**
 * gengate's spans on an OpenTelemetry set-up of your own (a tracer provider you registered, e.g. with your
 * APM's SDK, or the one given here): nothing is started, shutdown() does nothing.
 */
export async function loadTracing(options: { readonly tracerProvider?: TracerProvider } = {}): Promise<HostTracing> {
  const { createOtelHostTracing } = await importOptional('@opentelemetry/api', () => import('./otel/otel-host-tracing.js'));
  return createOtelHostTracing(options);
}
