import { z } from 'zod';

export type TraceExporterName = 'otlp' | 'console';

const exporters = z
  .string()
  .default('none')
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.enum(['otlp', 'console', 'none']), { error: 'must be a comma-separated list of otlp, console or none' }));

const switchSchema = z.object({
  OTEL_TRACES_EXPORTER: exporters,
  OTEL_SDK_DISABLED: z.enum(['true', 'false', '']).default('false'),
});

/**
 * Whether gengate writes traces, from the standard variables: on when OTEL_TRACES_EXPORTER names `otlp`
 * (or `console`) and OTEL_SDK_DISABLED is not `true`. Off by default: unlike the SDK's own default
 * (`otlp`), an unset OTEL_TRACES_EXPORTER means no traces, so a host that does not ask for them loads
 * no OpenTelemetry package at all. Throws on a value it does not know.
 */
export function traceExporters(env: Readonly<Record<string, string | undefined>>): readonly TraceExporterName[] {
  const parsed = switchSchema.safeParse({ OTEL_TRACES_EXPORTER: env['OTEL_TRACES_EXPORTER'] || undefined, OTEL_SDK_DISABLED: env['OTEL_SDK_DISABLED']?.toLowerCase() });
  if (!parsed.success) throw new Error(`Invalid tracing configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  if (parsed.data.OTEL_SDK_DISABLED === 'true') return [];
  return [...new Set(parsed.data.OTEL_TRACES_EXPORTER.filter((e): e is TraceExporterName => e !== 'none'))];
}
