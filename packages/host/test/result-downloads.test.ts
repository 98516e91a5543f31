import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../src/storage/local-blob-store.js';
import { guardedLookup } from '@gengate/core/internal';
import { createGuardedFetch } from '../src/net/guarded-fetch.js';
import { ended, FakeAdapter, MODELS, newCaller, openWorkerHarness, PNG_BYTES, usageFor, type HostProcess, type WorkerHarness } from './support/worker-harness.js';

/** A file server on loopback: /ok.png, /page.html, /huge (2 GB declared), /endless (chunked, never ends), /redirect-to-metadata. */
async function fileServer(): Promise<{ server: Server; origin: string; hits: () => number; maxEndlessBytes: () => number }> {
  let hits = 0;
  let endlessBytes = 0;
  const zeros = Buffer.alloc(1 << 20);
  const server = createServer((req, res) => {
    hits++;
    if (req.url === '/ok.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(PNG_BYTES));
    if (req.url === '/page.html') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an image</html>');
    if (req.url === '/unknown') return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from(PNG_BYTES));
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(2 * 1024 ** 3) });
      res.write(zeros);
      return; // would send 2 GB; the gateway must refuse on the declared length
    }
    if (req.url === '/endless') {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const pump = () => {
        while (!res.destroyed && endlessBytes < 2 * 1024 ** 3) {
          endlessBytes += zeros.length;
          if (!res.write(zeros)) break;
        }
        if (!res.destroyed && endlessBytes < 2 * 1024 ** 3) res.once('drain', pump);
      };
      res.on('close', () => undefined);
      pump();
      return;
    }
    if (req.url === '/redirect-to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, hits: () => hits, maxEndlessBytes: () => endlessBytes };
}

describe('the download guard', () => {
  it('refuses names that resolve to loopback at connect time', async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup(false)('localhost', {}, (err) => resolve(err)));
    expect(error?.name).toBe('ForbiddenAddressError');
  });

  it('refuses literal private and metadata addresses before connecting, and every redirect hop to them', async () => {
    const files = await fileServer();
    try {
      const untrusted = createGuardedFetch({ allowPrivate: false, trustedOrigins: () => new Set() });
      for (const url of [`${files.origin}/ok.png`, 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:9/x', 'http://localhost:9/x', 'http://10.1.2.3/x']) {
        await expect(untrusted(url), url).rejects.toMatchObject({ kind: 'bad_output' });
      }
      expect(files.hits()).toBe(0);
      const trusted = createGuardedFetch({ allowPrivate: false, trustedOrigins: () => new Set([files.origin]) });
      expect((await trusted(`${files.origin}/ok.png`)).status).toBe(200);
      await expect(trusted(`${files.origin}/redirect-to-metadata`)).rejects.toThrow(/169\.254\.169\.254/);
    } finally {
      files.server.closeAllConnections();
      files.server.close();
    }
  });
});

describe('result files: streamed, capped, type-checked, guarded', () => {
  const adapter = new FakeAdapter();
  let h: WorkerHarness;
  let host: HostProcess;
  let files: Awaited<ReturnType<typeof fileServer>>;
  const trusted = new Set<string>();
  const dir = mkdtempSync(join(tmpdir(), 'gengate-downloads-'));
  const disk = new LocalBlobStore(dir);
  const storedFor = (taskId: string) => (existsSync(join(dir, taskId)) ? readdirSync(join(dir, taskId)) : []);

  beforeAll(async () => {
    files = await fileServer();
    h = await openWorkerHarness(() => [adapter]);
    host = await h.startProcess({
      core: {
        blobStore: disk,
        execution: {
          fetch: createGuardedFetch({ allowPrivate: false, trustedOrigins: () => trusted }),
          maxResultBytes: { chat: 1_000_000, image: 1_000_000, video: 256 * 1024 * 1024 },
        },
      },
    });
  });

  afterAll(async () => {
    await h?.close();
    files.server.closeAllConnections();
    files.server.close();
  });

  async function run(model: string, url: string, body: unknown = { prompt: 'x' }) {
    adapter.resultUrl = url;
    const auth = await newCaller(host.gengate, 100);
    const { task_id } = await host.gengate.submitRun.execute(auth, model, body);
    return { auth, task: await ended(host.stores, task_id, 60_000) };
  }

  it("downloads a result from the provider's own trusted origin into the blob store", async () => {
    trusted.add(files.origin);
    const { task } = await run(MODELS.urlImage, `${files.origin}/ok.png`);
    expect(task.status).toBe('success');
    expect(task.outputs).toEqual([{ key: expect.stringMatching(new RegExp(`^${task.id}/output-0-[0-9a-f]{12}\\.png$`)), mediaType: 'image/png', bytes: PNG_BYTES.byteLength }]);
    expect(Buffer.from((await disk.get(task.outputs[0]?.key ?? ''))?.data ?? []).equals(Buffer.from(PNG_BYTES))).toBe(true);
  });

  it('sniffs a result served as application/octet-stream', async () => {
    const { task } = await run(MODELS.urlImage, `${files.origin}/unknown`);
    expect(task.outputs[0]?.mediaType).toBe('image/png');
  });

  it('fails an image task whose result is not an image, uncharged, keeping nothing', async () => {
    const { auth, task } = await run(MODELS.urlImage, `${files.origin}/page.html`);
    expect(task.status).toBe('fail');
    expect(task.errorMessage).toBe('Provider fake returned unusable output: the result is text/html, not a image file. No credits were charged.');
    expect(await usageFor(host.stores, auth.userId, task.id)).toEqual([]);
    expect(storedFor(task.id)).toEqual([]);
  });

  it('refuses a result URL on loopback or the metadata address that is not the provider origin, without fetching it', async () => {
    trusted.clear();
    const before = files.hits();
    for (const url of [`${files.origin}/ok.png`, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/']) {
      const { task } = await run(MODELS.urlImage, url);
      expect(task.status).toBe('fail');
      expect(task.errorMessage).toContain('a private or loopback address');
    }
    expect(files.hits()).toBe(before);
    trusted.add(files.origin);
  });

  it('refuses a 2 GB result by its declared length and one streamed past the cap, with flat memory', async () => {
    trusted.add(files.origin);
    const rssBefore = process.memoryUsage().rss;
    const declared = await run(MODELS.urlVideo, `${files.origin}/huge`, { prompt: 'x', video_params: { duration: 5 } });
    expect(declared.task.status).toBe('fail');
    expect(declared.task.errorMessage).toContain("larger than this gateway's limit of");
    const streamed = await run(MODELS.urlVideo, `${files.origin}/endless`, { prompt: 'x', video_params: { duration: 5 } });
    expect(streamed.task.status).toBe('fail');
    expect(streamed.task.errorMessage).toContain('larger than');
    const grewMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    process.stdout.write(`2 GB results refused; resident memory grew ${grewMb.toFixed(1)} MB (cap 256 MB, streamed ${(files.maxEndlessBytes() / 1024 / 1024).toFixed(0)} MB before the refusal)\n`);
    // Bounded, not proportional: the process holds a few chunks (and garbage not yet collected), never the file.
    expect(grewMb).toBeLessThan(128);
    expect(grewMb).toBeLessThan(files.maxEndlessBytes() / 1024 / 1024 / 2);
    expect(storedFor(streamed.task.id)).toEqual([]);
  }, 120_000);
});
