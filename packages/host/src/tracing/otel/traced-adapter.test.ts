import { createOpenAIAdapter } from '@gengate/adapters';
import { kitCall, startFakeOpenAI } from '@gengate/testing';
import { OpenTelemetry } from '@ai-sdk/otel';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { registerTelemetry } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEMPT_SPAN } from './span-helpers.js';
import { tracedAdapter } from './traced-adapter.js';

/**
 * An adapter built on the AI SDK (OpenAI, against the fake upstream that follows
 * platform.openai.com/docs/api-reference/chat/create): gengate's upstream-call span carries the GenAI
 * attributes, the AI SDK's own spans (its @ai-sdk/otel integration, registered as startTracing does) nest
 * under it, and the job's attempt span is told the route.
 */
const KEY = 'sk-test-openai-0123456789abcdef';
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
registerTelemetry(new OpenTelemetry());
const fake = await startFakeOpenAI();
afterAll(async () => {
  await fake.close();
  await provider.shutdown();
});

describe('tracedAdapter over an AI SDK adapter', () => {
  it("chat: one CLIENT span with the GenAI attributes, the AI SDK's spans under it, the route named on the attempt", async () => {
    const tracer = provider.getTracer('gengate');
    const adapter = tracedAdapter(createOpenAIAdapter({ apiKey: KEY, baseURL: `${fake.url}/v1` }), tracer);
    const model = adapter.models.find((m) => m.id === 'openai.gpt-4.1');
    if (!model || !adapter.generate) throw new Error('openai.gpt-4.1 is not served');
    const generate = adapter.generate;
    const attempt = tracer.startSpan('gengate.attempt');
    const result = await context.with(trace.setSpan(context.active(), attempt).setValue(ATTEMPT_SPAN, attempt), () =>
      generate(kitCall(model, { prompt: 'hello', llm_params: { max_tokens: 16 } }, AbortSignal.timeout(10_000))),
    );
    attempt.end();
    expect(fake.calls.at(-1)?.path).toBe('/v1/chat/completions');

    const spans = exporter.getFinishedSpans();
    const upstream = spans.find((s) => s.name === 'chat openai.gpt-4.1') as ReadableSpan;
    expect(upstream.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
    expect(upstream.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'openai.gpt-4.1',
      'gen_ai.usage.input_tokens': result.usage?.inputTokens,
      'gen_ai.usage.output_tokens': result.usage?.outputTokens,
      'gengate.route': 'openai.gpt-4.1',
    });
    expect(result.usage?.outputTokens).toBeGreaterThan(0);
    expect(upstream.attributes['gen_ai.response.model']).toBe(result.metadata?.model ?? 'openai.gpt-4.1');
    expect(upstream.attributes['gen_ai.response.finish_reasons']).toEqual([result.metadata?.finishReason]);

    // The AI SDK's own spans: in the same trace, below gengate's upstream-call span.
    const below = (s: ReadableSpan): boolean => {
      const parent = spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);
      return parent !== undefined && (parent === upstream || below(parent));
    };
    const sdkSpans = spans.filter((s) => s !== upstream && below(s));
    expect(sdkSpans.length).toBeGreaterThan(0);
    expect(sdkSpans.every((s) => s.spanContext().traceId === attempt.spanContext().traceId)).toBe(true);
    expect(sdkSpans.some((s) => Object.keys(s.attributes).some((k) => k.startsWith('gen_ai.')))).toBe(true);

    const attemptSpan = spans.find((s) => s.name === 'gengate.attempt') as ReadableSpan;
    expect(attemptSpan.attributes).toMatchObject({ 'gengate.route': 'openai.gpt-4.1', 'gen_ai.provider.name': 'openai' });
  });
});
