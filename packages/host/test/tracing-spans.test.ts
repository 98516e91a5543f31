import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import express from 'express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGengateHost, loadTracing, type GengateHost } from '../src/index.js';
import { waitFor } from './support/spawn-server.js';

/**
 * The spans of one task, on PostgreSQL with the queue between the API and the worker: an in-memory span
 * exporter receives every span; the worker's spans (queue wait, attempt, upstream call, download,
 * settlement) must be in the submission's trace, under its intake span, with the GenAI attributes.
 */
describe('OpenTelemetry traces of a task (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let db: TestDatabase;
  let pool: pg.Pool;
  let host: GengateHost;
  let server: Server;
  let base = '';
  let userId = '';
  const headers = { 'x-test-user': 'tracer', 'content-type': 'application/json' };

  beforeAll(async () => {
    provider.register();
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 5 });
    host = await createGengateHost({
      database: { pool },
      adapters: [createSandboxAdapter({ latencyMs: { chat: 5, image: 5, video: 5 } })],
      filesDir: join(mkdtempSync(join(tmpdir(), 'gengate-tracing-')), 'files'),
      publicUrl: () => base,
      settings: { shutdownGraceMs: 2_000 },
      authenticate: async (req) => (req.headers['x-test-user'] === 'tracer' ? { userId, apiKeyId: null } : null),
      tracing: await loadTracing({ tracerProvider: provider }),
    });
    await host.migrate();
    await host.startWorkers();
    userId = (await host.ensureUser({ email: 'tracer@example.com', credits: 100 })).userId;
    const app = express();
    app.use('/api/v1', host.router);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await host?.close();
    await pool?.end();
    await db?.drop();
    await provider.shutdown();
  });

  /** Submits a task with a caller's traceparent and waits until it succeeded and its settlement span ended. */
  async function runTask(modelId: string, body: object): Promise<{ taskId: string; traceId: string; spans: ReadableSpan[] }> {
    const traceId = crypto.randomUUID().replaceAll('-', '');
    const callerSpanId = 'a1b2c3d4e5f60718';
    const res = await fetch(`${base}/api/v1/run/${modelId}`, { method: 'POST', headers: { ...headers, traceparent: `00-${traceId}-${callerSpanId}-01` }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(200);
    const { task_id: taskId } = (await res.json()) as { task_id: string };
    await waitFor(
      async () => {
        const t = (await (await fetch(`${base}/api/v1/run/tasks/${taskId}`, { headers })).json()) as { status: string };
        return t.status === 'success' ? t : null;
      },
      { timeoutMs: 20_000, what: `${modelId} task to succeed` },
    );
    const spans = await waitFor(
      async () => {
        const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
        return mine.some((s) => s.name === 'gengate.settle') && mine.some((s) => s.name === 'gengate.attempt' && s.attributes['gengate.outcome'] !== undefined) ? mine : null;
      },
      { timeoutMs: 5_000, what: 'the settlement span' },
    );
    return { taskId, traceId, spans };
  }

  const one = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
    const found = spans.filter((s) => s.name === name);
    expect(found.map((s) => s.name), name).toHaveLength(1);
    return found[0] as ReadableSpan;
  };
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
  const idOf = (s: ReadableSpan) => s.spanContext().spanId;

  it('chat: one trace from the HTTP request across the queue to the settlement, with the GenAI attributes', async () => {
    const { taskId, spans } = await runTask('sandbox.echo-chat', { prompt: 'trace me', llm_params: { max_tokens: 64 } });
    const http = one(spans, 'POST /api/v1/run/:model_id');
    expect(parentOf(http)).toBe('a1b2c3d4e5f60718'); // the caller's traceparent was continued
    expect(http.attributes['http.response.status_code']).toBe(200);
    const intake = one(spans, 'gengate.intake');
    expect(parentOf(intake)).toBe(idOf(http));
    expect(intake.attributes).toMatchObject({ 'gengate.task_id': taskId, 'gengate.user_id': userId, 'gen_ai.request.model': 'sandbox.echo-chat', 'gengate.outcome': 'accepted' });
    expect(intake.attributes['gengate.credits.quoted']).toBeGreaterThan(0);

    // Across the queue: the worker's spans are children of the submission's intake span.
    const wait = one(spans, 'gengate.queue_wait');
    const attempt = one(spans, 'gengate.attempt');
    expect(parentOf(wait)).toBe(idOf(intake));
    expect(parentOf(attempt)).toBe(idOf(intake));
    expect(wait.attributes['gengate.queue']).toBe('generate');
    expect(attempt.attributes).toMatchObject({ 'gengate.task_id': taskId, 'gengate.attempt': 1, 'gengate.route': 'sandbox.echo-chat', 'gen_ai.provider.name': 'sandbox', 'gengate.outcome': 'success' });

    const upstream = one(spans, 'chat sandbox.echo-chat');
    expect(parentOf(upstream)).toBe(idOf(attempt));
    expect(upstream.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'sandbox',
      'gen_ai.request.model': 'sandbox.echo-chat',
      'gen_ai.response.model': 'sandbox.echo-chat',
      'gen_ai.response.finish_reasons': ['stop'],
      'gengate.task_id': taskId,
      'gengate.upstream.operation': 'generate',
    });
    expect(upstream.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(upstream.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);

    const settle = one(spans, 'gengate.settle');
    expect(parentOf(settle)).toBe(idOf(attempt));
    expect(settle.attributes).toMatchObject({ 'gengate.task_id': taskId, 'gengate.user_id': userId, 'gengate.outcome': 'success', 'gengate.ended': true });
    expect(settle.attributes['gengate.credits']).toBeGreaterThan(0);
    expect(settle.attributes['gen_ai.usage.output_tokens']).toBe(upstream.attributes['gen_ai.usage.output_tokens']);
  });

  it('image: generate_content with the files stored under a download span', async () => {
    const { taskId, spans } = await runTask('sandbox.pixel-image', { prompt: 'a traced pixel' });
    const intake = one(spans, 'gengate.intake');
    const attempt = one(spans, 'gengate.attempt');
    expect(parentOf(attempt)).toBe(idOf(intake));
    const upstream = one(spans, 'generate_content sandbox.pixel-image');
    expect(parentOf(upstream)).toBe(idOf(attempt));
    expect(upstream.attributes).toMatchObject({ 'gen_ai.operation.name': 'generate_content', 'gen_ai.provider.name': 'sandbox', 'gen_ai.request.model': 'sandbox.pixel-image', 'gengate.usage.images': 1 });
    const download = one(spans, 'gengate.download');
    expect(parentOf(download)).toBe(idOf(attempt));
    expect(download.attributes['gengate.task_id']).toBe(taskId);
    expect(download.attributes['gengate.bytes']).toBeGreaterThan(0);
    expect(one(spans, 'gengate.settle').attributes['gengate.credits']).toBeGreaterThan(0);
  });

  it('video: the start, each status check after its queue wait, all in the submission trace', async () => {
    const { taskId, spans } = await runTask('sandbox.motion-video', { prompt: 'a traced motion', video_params: { duration: 5 } });
    const intake = one(spans, 'gengate.intake');
    const attempt = one(spans, 'gengate.attempt');
    expect(attempt.attributes['gengate.outcome']).toBe('waiting');
    const start = spans.filter((s) => s.name === 'generate_content sandbox.motion-video' && s.attributes['gengate.upstream.operation'] === 'start');
    expect(start).toHaveLength(1);
    expect(parentOf(start[0] as ReadableSpan)).toBe(idOf(attempt));
    const checks = spans.filter((s) => s.name === 'gengate.status_check');
    expect(checks.length).toBeGreaterThan(0);
    for (const c of checks) expect(parentOf(c)).toBe(idOf(intake));
    const waits = spans.filter((s) => s.name === 'gengate.queue_wait');
    expect(waits.map((w) => w.attributes['gengate.queue']).sort()).toEqual(['generate', ...checks.map(() => 'check')].sort());
    // A status check waits for its scheduled time: the queue wait span starts at the job's startAfter, before the check.
    const lastCheck = checks.at(-1) as ReadableSpan;
    const succeeded = spans.find((s) => s.attributes['gengate.upstream.operation'] === 'status' && s.attributes['gen_ai.response.model'] !== undefined);
    expect(succeeded?.attributes).toMatchObject({ 'gen_ai.operation.name': 'generate_content', 'gen_ai.provider.name': 'sandbox', 'gen_ai.request.model': 'sandbox.motion-video', 'gengate.task_id': taskId });
    expect(parentOf(succeeded as ReadableSpan)).toBe(idOf(lastCheck));
    expect(one(spans, 'gengate.download').parentSpanContext?.spanId).toBe(idOf(lastCheck));
    expect(parentOf(one(spans, 'gengate.settle'))).toBe(idOf(lastCheck));
  });
});
