import { describe, expect, it } from 'vitest';
import { traceExporters } from './tracing-switch.js';

describe('traceExporters (the switch of tracing, from the standard OTEL_* variables)', () => {
  it('is off by default and with none', () => {
    expect(traceExporters({})).toEqual([]);
    expect(traceExporters({ OTEL_TRACES_EXPORTER: '' })).toEqual([]);
    expect(traceExporters({ OTEL_TRACES_EXPORTER: 'none' })).toEqual([]);
  });

  it('is on with otlp and/or console, each once', () => {
    expect(traceExporters({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual(['otlp']);
    expect(traceExporters({ OTEL_TRACES_EXPORTER: 'otlp, console,otlp' })).toEqual(['otlp', 'console']);
  });

  it('OTEL_SDK_DISABLED=true turns it off whatever the exporter', () => {
    expect(traceExporters({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' })).toEqual([]);
    expect(traceExporters({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' })).toEqual(['otlp']);
  });

  it('refuses an exporter it does not know (rather than silently exporting nothing)', () => {
    expect(() => traceExporters({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => traceExporters({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'yes' })).toThrow(/OTEL_SDK_DISABLED/);
  });
});
