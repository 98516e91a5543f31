import { Writable } from 'node:stream';
import { createSandboxAdapter } from '@gengate/adapters';
import { TOKENS } from '@gengate/core';
import { createMemoryGengate } from '@gengate/testing';
import express from 'express';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import request from './support/contract-request.js';

interface Line {
  level: number;
  msg?: string;
  err?: { stack?: string };
  refusal?: string;
  count?: number;
  [k: string]: unknown;
}

/** A pino logger writing into an array, and a way to wait for a line (the event, not a sleep). */
function capture() {
  const lines: Line[] = [];
  const waiters: (() => void)[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
      for (const w of waiters.splice(0)) w();
      cb();
    },
  });
  const until = async (pred: (l: Line) => boolean) => {
    for (;;) {
      const hit = lines.find(pred);
      if (hit) return hit;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { logger: pino({ level: 'info' }, sink), lines, until };
}

/**
 * Client refusals (4xx, and 503 overloaded: back-pressure) are logged at info without a stack, and a burst
 * of them becomes one line per type per interval with a count, instead of a line (an error with a stack,
 * for the 503) per request: the log stays readable exactly when the server is overloaded.
 */
describe('logging of refused requests', () => {
  it('60 refused submissions (503 overloaded) and 60 unknown keys (401): no error-level line, no stack, a few lines with the counts', async () => {
    const memory = createMemoryGengate({
      adapters: [createSandboxAdapter()],
      configure: (c) => {
        c.rebind(TOKENS.SubmissionGate).toConstantValue({ state: () => ({ open: false, waiting: 100, limit: 100, retryAfterSeconds: 5 }) });
      },
    });
    const { api_key: key } = await memory.gengate.admin.createUser({ email: 'refusals@example.com', credits: 10 });
    const log = capture();
    const INTERVAL = 2_000;
    const app = express().use('/api/v1', createGengateRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: log.logger, refusalSummaryMs: INTERVAL }));
    const started = Date.now();
    for (let i = 0; i < 60; i++) {
      const res = await request(app).post('/api/v1/run/sandbox.echo-chat').set('Authorization', `Bearer ${key}`).send({ prompt: 'p' });
      expect(res.status).toBe(503);
      expect(res.body.error.type).toBe('overloaded');
      expect(res.headers['retry-after']).toBe('5');
    }
    for (let i = 0; i < 60; i++) expect((await request(app).get('/api/v1/models').set('Authorization', 'Bearer gg_live_nobody')).status).toBe(401);
    expect(log.lines.filter((l) => l.level >= 50).length).toBe(0);
    expect(log.lines.filter((l) => JSON.stringify(l).includes('"stack"')).length).toBe(0);
    const elapsed = Date.now() - started;
    // Every refusal is accounted for: the first of a window logged as it happened, the rest in the window's count.
    const accounted = (kind: string) =>
      log.lines.filter((l) => l.refusal === kind).reduce((n, l) => n + (typeof l.count === 'number' ? l.count : 1), 0);
    await log.until(() => accounted('overloaded') === 60 && accounted('authentication_failed') === 60);
    for (const [kind, status] of [['overloaded', 503], ['authentication_failed', 401]] as const) {
      const lines = log.lines.filter((l) => l.refusal === kind);
      for (const l of lines) expect(l).toMatchObject({ level: 30, status });
      // At most two lines per kind per interval (the first, then the summary), instead of 60.
      expect(lines.length, kind).toBeLessThanOrEqual(2 * (Math.floor(elapsed / INTERVAL) + 1));
      expect(lines.some((l) => typeof l.count === 'number' && l.count > 1), kind).toBe(true);
    }
    // No per-request access line for a refused request.
    expect(log.lines.filter((l) => [401, 503].includes((l['res'] as { statusCode?: number } | undefined)?.statusCode ?? 0))).toEqual([]);
  });

  it('a real failure (500) is still logged at error level with its stack, once per request', async () => {
    const memory = createMemoryGengate({ adapters: [createSandboxAdapter()] });
    const { api_key: key } = await memory.gengate.admin.createUser({ email: 'failure@example.com', credits: 10 });
    memory.gengate.catalog.popular = () => {
      throw new Error('boom');
    };
    const log = capture();
    const app = express().use('/api/v1', createGengateRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: log.logger, refusalSummaryMs: 300 }));
    for (let i = 0; i < 3; i++) expect((await request(app).get('/api/v1/models/popular').set('Authorization', `Bearer ${key}`)).status).toBe(500);
    const errors = log.lines.filter((l) => l.level >= 50 && l.err?.stack?.includes('boom'));
    expect(errors).toHaveLength(3);
  });
});
