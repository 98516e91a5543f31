/**
 * npm run scale:files — a large result file passes through the S3 store and is served with Range requests
 * while this process's resident memory stays flat. One gateway in this process (in-memory stores, the S3
 * store over the real AWS SDK, the HTTP router) and s3rver in a child process (its memory is not ours):
 *   1. a video task whose upstream result is a URL of --mb megabytes (default 500): the worker downloads it
 *      and streams it into S3 (multipart upload);
 *   2. the file is downloaded whole through GET /files, then by Range requests (large and small windows),
 *      every byte checked against what the upstream sent.
 * Prints the RSS before, the peak during each phase and after; exits non-zero when the peak passes the
 * starting RSS by more than --bound megabytes (default 100). Options: --mb N, --bound N, --out FILE (JSON summary).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGengate, createMemoryStores } from '@gengate/core';
import express from 'express';
import { pino } from 'pino';
import { createGengateRouter } from '../packages/host/src/http/create-router.js';
import { S3BlobStore } from '../packages/host/src/storage/s3-blob-store.js';
import { startS3Server } from '../packages/host/test/support/s3-server.js';
import { FakeAdapter, MODELS } from '../packages/host/test/support/worker-harness.js';
import { checkList } from './support/task-outcome-checks.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const MB = 1024 * 1024;
const SIZE = arg('mb', 500) * MB;
const BOUND_MB = arg('bound', 100);
const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
const checks = checkList();
const { check } = checks;

/** The file: 1 MiB chunks of one base pattern, each stamped with its index (chunk 0 opens with an MP4 `ftyp` box). */
const BASE = Buffer.alloc(MB);
for (let i = 0; i < MB; i++) BASE[i] = (i * 31 + 7) & 255;
function chunkAt(c: number): Buffer {
  const chunk = Buffer.from(BASE);
  chunk.writeBigUInt64BE(BigInt(c), 16);
  if (c === 0) Buffer.from([0, 0, 0, 16, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 2, 0]).copy(chunk, 0);
  return chunk;
}
/** The sha256 of bytes [start, end] of the file, computed chunk by chunk. */
function expectedHash(start: number, end: number): string {
  const h = createHash('sha256');
  for (let c = Math.floor(start / MB); c * MB <= end; c++) {
    const chunk = chunkAt(c);
    h.update(chunk.subarray(Math.max(0, start - c * MB), Math.min(MB, end - c * MB + 1)));
  }
  return h.digest('hex');
}

let peak = 0;
const rssMb = () => process.memoryUsage.rss() / MB;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 25);
const phase = () => {
  const p = Math.max(peak, rssMb());
  peak = 0;
  return p;
};

async function main(): Promise<void> {
  const started = Date.now();
  const s3 = await startS3Server({ separateProcess: true });
  // GET /video.mp4?mb=N sends the first N MiB of the file (default: all of it).
  const upstream = createServer((req, res) => {
    const size = Math.min(SIZE, Number(new URL(req.url ?? '/', 'http://x').searchParams.get('mb') ?? SIZE / MB) * MB);
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) });
    let c = 0;
    const pump = () => {
      while (c * MB < size) {
        if (!res.write(chunkAt(c++))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const adapter = new FakeAdapter();
  adapter.resultUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/video.mp4`;
  adapter.resultType = 'video/mp4';

  const blobs = new S3BlobStore(s3.settings('scale'));
  const { scope, uow } = createMemoryStores();
  let base = '';
  const gengate = createGengate({
    adapters: [adapter],
    stores: scope,
    unitOfWork: uow,
    blobStore: blobs,
    resultUrls: { urlFor: (key) => `${base}/api/v1/files/${key}` },
    paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
    execution: { fetch: globalThis.fetch, maxResultBytes: { chat: MB, image: MB, video: 2 * 1024 * MB } },
  });
  const app = express().use('/api/v1', createGengateRouter({ gengate, blobStore: blobs, logger: pino({ level: 'warn' }) }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { api_key: key } = await gengate.admin.createUser({ email: 'scale@example.com', credits: 1_000_000 });
  const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };

  // Warm-up: the same path once with an 8 MiB file (modules loaded, connection pools and buffers in place).
  const upstreamUrl = adapter.resultUrl;
  adapter.resultUrl = `${upstreamUrl}?mb=8`;
  const warm = (await (await fetch(`${base}/api/v1/run/${MODELS.urlVideo}`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: 'warm-up' }) })).json()) as { task_id: string };
  await gengate.executeTask.runGeneration(warm.task_id, new AbortController().signal);
  const warmUrl = ((await (await fetch(`${base}/api/v1/run/tasks/${warm.task_id}`, { headers: auth })).json()) as { result_urls: string[] }).result_urls[0] ?? '';
  for (const headers of [{}, { Range: 'bytes=100-4194403' }] as Record<string, string>[]) await (await fetch(warmUrl, { headers })).arrayBuffer();
  adapter.resultUrl = upstreamUrl;

  globalThis.gc?.();
  const before = rssMb();
  peak = 0;
  console.log(`RSS before: ${before.toFixed(1)} MB; file: ${SIZE / MB} MB`);

  // 1. Upstream -> worker -> S3 (multipart upload).
  let t = Date.now();
  const submitted = (await (await fetch(`${base}/api/v1/run/${MODELS.urlVideo}`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: 'a long one' }) })).json()) as {
    task_id: string;
  };
  await gengate.executeTask.runGeneration(submitted.task_id, new AbortController().signal);
  const task = (await (await fetch(`${base}/api/v1/run/tasks/${submitted.task_id}`, { headers: auth })).json()) as { status: string; result_urls: string[] };
  const uploadPeak = phase();
  check('the task succeeded with its file stored in S3', task.status === 'success' && (await blobs.stat(new URL(task.result_urls[0] ?? base).pathname.replace('/api/v1/files/', '')))?.size === SIZE);
  console.log(`upload (upstream -> S3): ${((Date.now() - t) / 1000).toFixed(1)} s, peak RSS ${uploadPeak.toFixed(1)} MB`);

  // 2. Served through the gateway: whole, then by ranges.
  const url = task.result_urls[0] ?? '';
  const download = async (range: [number, number] | null): Promise<{ status: number; hash: string; bytes: number; contentRange: string | null }> => {
    const res = await fetch(url, range ? { headers: { Range: `bytes=${range[0]}-${range[1]}` } } : {});
    const h = createHash('sha256');
    let bytes = 0;
    for await (const chunk of res.body ?? []) {
      h.update(chunk);
      bytes += chunk.byteLength;
    }
    return { status: res.status, hash: h.digest('hex'), bytes, contentRange: res.headers.get('content-range') };
  };
  t = Date.now();
  const whole = await download(null);
  const servePeakWhole = phase();
  check('the whole file downloads with the bytes the upstream sent', whole.status === 200 && whole.bytes === SIZE && whole.hash === expectedHash(0, SIZE - 1), `${whole.bytes} bytes`);
  console.log(`whole download: ${((Date.now() - t) / 1000).toFixed(1)} s, peak RSS ${servePeakWhole.toFixed(1)} MB`);

  t = Date.now();
  const windows: [number, number][] = [
    [0, 0],
    [SIZE - 1, SIZE - 1],
    [MB - 10, MB + 10],
    [Math.floor(SIZE / 2), Math.min(SIZE - 1, Math.floor(SIZE / 2) + 64 * MB - 1)],
    [Math.max(0, SIZE - 100 * MB), SIZE - 1],
    ...Array.from({ length: 8 }, (_, i) => {
      const start = Math.floor(((i + 0.37) * SIZE) / 9);
      return [start, Math.min(SIZE - 1, start + 8 * MB + i)] as [number, number];
    }),
  ];
  let rangesOk = 0;
  for (const [a, b] of windows) {
    const got = await download([a, b]);
    if (got.status === 206 && got.bytes === b - a + 1 && got.contentRange === `bytes ${a}-${b}/${SIZE}` && got.hash === expectedHash(a, b)) rangesOk++;
    else console.log(`range ${a}-${b}: ${got.status} ${got.contentRange} ${got.bytes} bytes`);
  }
  const servePeakRanges = phase();
  check('every Range request answers 206 with exactly its bytes', rangesOk === windows.length, `${rangesOk}/${windows.length}`);
  console.log(`${windows.length} range downloads: ${((Date.now() - t) / 1000).toFixed(1)} s, peak RSS ${servePeakRanges.toFixed(1)} MB`);

  globalThis.gc?.();
  const after = rssMb();
  const highest = Math.max(uploadPeak, servePeakWhole, servePeakRanges);
  console.log(
    `RSS before ${before.toFixed(1)} MB, peak during upload ${uploadPeak.toFixed(1)} MB, during whole download ${servePeakWhole.toFixed(1)} MB, during ranges ${servePeakRanges.toFixed(1)} MB, after ${after.toFixed(1)} MB; growth at peak ${(highest - before).toFixed(1)} MB (bound ${BOUND_MB} MB); ${Math.round((Date.now() - started) / 1000)} s`,
  );
  check(`resident memory stays flat (peak within ${BOUND_MB} MB of the start)`, highest - before <= BOUND_MB, `+${(highest - before).toFixed(1)} MB`);

  server.close();
  upstream.close();
  blobs.close();
  await s3.close();
}

main()
  .catch((err: unknown) => check('scale:files run completed', false, err instanceof Error ? (err.stack ?? err.message) : String(err)))
  .finally(() => {
    clearInterval(sampler);
    const summary = checks.summary();
    if (out) writeFileSync(out, JSON.stringify(summary));
    console.log(`${summary.numPassedTests} passed, ${summary.numFailedTests} failed`);
    process.exit(summary.numFailedTests > 0 ? 1 : 0);
  });
