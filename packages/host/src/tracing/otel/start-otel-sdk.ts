import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { HostTracing } from '../host-tracing.js';
import type { TraceExporterName } from '../tracing-switch.js';
import { createOtelHostTracing } from './otel-host-tracing.js';

/**
 * Starts the OpenTelemetry SDK for gengate's traces and registers it globally (tracer provider, the
 * AsyncLocalStorage context manager, the W3C trace-context propagator): spans batched
 * (`OTEL_BSP_*`) to each exporter named in OTEL_TRACES_EXPORTER. The OTLP exporter speaks OTLP/HTTP and
 * reads its own variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, ...); the resource takes `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`
 * (service name `gengate` by default). The AI SDK's spans are joined when `@ai-sdk/otel` is installed.
 */
export async function startOtelSdk(exporters: readonly TraceExporterName[]): Promise<HostTracing> {
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'gengate' })).merge(detectResources({ detectors: [envDetector] }));
  const spanExporters: SpanExporter[] = exporters.map((e) => (e === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter()));
  const provider = new NodeTracerProvider({ resource, spanProcessors: spanExporters.map((e) => new BatchSpanProcessor(e)) });
  provider.register();
  await registerAiSdkTelemetry();
  return createOtelHostTracing({ tracerProvider: provider, shutdown: () => provider.shutdown() });
}

/**
 * The AI SDK (7) emits its spans through a registered telemetry integration (`@ai-sdk/otel`), on the global
 * tracer provider and the active context: its spans then nest under gengate's upstream-call span. Without
 * the package, gengate's own spans are written all the same.
 */
async function registerAiSdkTelemetry(): Promise<boolean> {
  try {
    const [{ registerTelemetry }, { OpenTelemetry }] = await Promise.all([import('ai'), import('@ai-sdk/otel')]);
    registerTelemetry(new OpenTelemetry());
    return true;
  } catch {
    return false;
  }
}
