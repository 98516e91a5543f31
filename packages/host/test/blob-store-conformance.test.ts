import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { BlobStore } from '@gengate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../src/storage/local-blob-store.js';
import { S3BlobStore } from '../src/storage/s3-blob-store.js';
import { startS3Server, type TestS3Server } from './support/s3-server.js';

const TASK = '0f8fad5b-d9cb-469f-a165-70867728950e';
const OTHER = '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed';
const MiB = 1024 * 1024;

/** `count` chunks of `size` bytes, each byte a function of its offset (so any range can be checked). */
async function* pattern(count: number, size: number): AsyncIterable<Uint8Array> {
  for (let c = 0; c < count; c++) {
    const chunk = new Uint8Array(size);
    for (let i = 0; i < size; i++) chunk[i] = (c * size + i) % 251;
    yield chunk;
  }
}
const byteAt = (offset: number) => offset % 251;

async function bytesOf(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of body) parts.push(c);
  return Buffer.concat(parts);
}

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

const stores: [string, () => BlobStore][] = [
  ['LocalBlobStore', () => new LocalBlobStore(mkdtempSync(join(tmpdir(), 'gg-blobs-')))],
  ['S3BlobStore', () => new S3BlobStore(s3.settings(`run-${Math.random().toString(36).slice(2)}/results`))],
];

describe.each(stores)('%s (BlobStore conformance)', (_name, make) => {
  it('stores a streamed file of several parts and reads it back whole, by stat and as a stream', async () => {
    const store = make();
    const key = `${TASK}/output-0.mp4`;
    // 11 MiB in 1 MiB chunks: three parts of a multipart upload on S3.
    expect(await store.put(key, pattern(11, MiB), 'video/mp4')).toEqual({ bytes: 11 * MiB });
    expect(await store.stat(key)).toEqual({ size: 11 * MiB, mediaType: 'video/mp4' });
    const opened = await store.open(key);
    expect(opened).toMatchObject({ size: 11 * MiB, mediaType: 'video/mp4', range: null });
    const all = await bytesOf(opened?.body ?? pattern(0, 0));
    const expected = await bytesOf(pattern(11, MiB));
    expect(all.length).toBe(11 * MiB);
    expect(createHash('sha256').update(all).digest('hex')).toBe(createHash('sha256').update(expected).digest('hex'));
  });

  it('reads byte ranges: the first byte, the first bytes, one across a part boundary, the last byte', async () => {
    const store = make();
    const key = `${TASK}/output-0.mp4`;
    await store.put(key, pattern(6, MiB), 'video/mp4');
    for (const range of [
      { start: 0, end: 0 },
      { start: 0, end: 9 },
      { start: 5 * MiB - 3, end: 5 * MiB + 2 },
      { start: 6 * MiB - 1, end: 6 * MiB - 1 },
    ]) {
      const opened = await store.open(key, range);
      expect(opened?.size).toBe(6 * MiB);
      expect(opened?.range).toEqual(range);
      const got = await bytesOf(opened?.body ?? pattern(0, 0));
      expect([...got]).toEqual(Array.from({ length: range.end - range.start + 1 }, (_, i) => byteAt(range.start + i)));
    }
  });

  it('stores whole byte arrays and empty files, with the media type given', async () => {
    const store = make();
    await store.put(`${TASK}/output-0.txt`, new TextEncoder().encode('hello'), 'text/plain');
    expect(new TextDecoder().decode((await store.get(`${TASK}/output-0.txt`))?.data)).toBe('hello');
    expect((await store.stat(`${TASK}/output-0.txt`))?.mediaType).toBe('text/plain');
    expect(await store.put(`${TASK}/output-1.txt`, new Uint8Array(0), 'text/plain')).toEqual({ bytes: 0 });
    expect((await store.stat(`${TASK}/output-1.txt`))?.size).toBe(0);
  });

  it('answers null for a missing file and refuses keys that are not result keys', async () => {
    const store = make();
    expect(await store.stat(`${TASK}/output-9.png`)).toBeNull();
    expect(await store.open(`${TASK}/output-9.png`)).toBeNull();
    expect(await store.open(`${TASK}/output-9.png`, { start: 0, end: 0 })).toBeNull();
    expect(await store.get(`${TASK}/output-9.png`)).toBeNull();
    expect(await store.open('../etc/passwd')).toBeNull();
    expect(await store.stat('../etc/passwd')).toBeNull();
    await expect(store.put(`${TASK}/../../x.png`, new Uint8Array([1]), 'image/png')).rejects.toThrow(/invalid blob key/);
  });

  it('stores nothing when the stream fails half-way', async () => {
    const store = make();
    const key = `${TASK}/output-0.mp4`;
    const failing = async function* () {
      yield* pattern(6, MiB);
      throw new Error('upstream connection reset');
    };
    await expect(store.put(key, failing(), 'video/mp4')).rejects.toThrow(/upstream connection reset/);
    expect(await store.stat(key)).toBeNull();
  });

  it('deletes every file of a task and only that task’s; nothing left is not an error', async () => {
    const store = make();
    await store.put(`${TASK}/output-0.png`, new Uint8Array([1]), 'image/png');
    await store.put(`${TASK}/output-1.png`, new Uint8Array([2]), 'image/png');
    await store.put(`${OTHER}/output-0.png`, new Uint8Array([3]), 'image/png');
    await store.deleteTask(TASK);
    expect(await store.stat(`${TASK}/output-0.png`)).toBeNull();
    expect(await store.stat(`${TASK}/output-1.png`)).toBeNull();
    expect(await store.stat(`${OTHER}/output-0.png`)).not.toBeNull();
    await store.deleteTask(TASK);
    await expect(store.deleteTask('../etc')).rejects.toThrow(/invalid task id/);
  });

  it('keeps two attempts at one task apart: deleting one attempt’s files leaves the other’s (and a missing file is not an error)', async () => {
    const store = make();
    const winner = [`${TASK}/output-0-0123456789ab.mp4`, `${TASK}/output-1-0123456789ab.png`];
    const loser = [`${TASK}/output-0-ba9876543210.mp4`, `${TASK}/output-1-ba9876543210.png`];
    // Both attempts store at once, then the loser removes what it wrote.
    await Promise.all([...winner, ...loser].map((key, i) => store.put(key, pattern(1, 1_000 + i), key.endsWith('.mp4') ? 'video/mp4' : 'image/png')));
    await store.delete([...loser, `${TASK}/output-2-ba9876543210.png`]);
    for (const key of loser) expect(await store.stat(key)).toBeNull();
    expect(await store.stat(winner[0] ?? '')).toEqual({ size: 1_000, mediaType: 'video/mp4' });
    expect(await store.stat(winner[1] ?? '')).toEqual({ size: 1_001, mediaType: 'image/png' });
    expect((await bytesOf((await store.open(winner[0] ?? ''))?.body ?? pattern(0, 0))).equals(await bytesOf(pattern(1, 1_000)))).toBe(true);
    await store.delete([]);
    await expect(store.delete([`${TASK}/../../etc/passwd`])).rejects.toThrow(/invalid blob key/);
  });

  it('lets a reader stop early (the stream is released, the file stays readable)', async () => {
    const store = make();
    const key = `${TASK}/output-0.mp4`;
    await store.put(key, pattern(6, MiB), 'video/mp4');
    for (let i = 0; i < 20; i++) {
      const opened = await store.open(key);
      for await (const chunk of opened?.body ?? pattern(0, 0)) {
        expect(chunk.byteLength).toBeGreaterThan(0);
        break;
      }
    }
    const again = await store.open(key, { start: 1, end: 1 });
    expect(again?.size).toBe(6 * MiB);
    expect([...(await bytesOf(again?.body ?? pattern(0, 0)))]).toEqual([byteAt(1)]);
  });
});

describe('S3BlobStore specifics', () => {
  it('keeps objects under its prefix, aborts the multipart upload of a failed stream, and hands out working presigned URLs', async () => {
    const store = new S3BlobStore(s3.settings('tenant-a/results'));
    const sent: string[] = [];
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize', name: 'recordCommands' },
    );
    await store.put(`${TASK}/output-0.png`, new Uint8Array([9, 8, 7, 6]), 'image/png');
    const listed = await store.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'tenant-a/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual([`tenant-a/results/${TASK}/output-0.png`]);

    const failing = async function* () {
      yield* pattern(7, MiB);
      throw new Error('cut');
    };
    await expect(store.put(`${TASK}/output-1.mp4`, failing(), 'video/mp4')).rejects.toThrow(/cut/);
    // Parts were sent, then the upload aborted (s3rver refuses AbortMultipartUpload, so it cannot be listed there).
    expect(sent).toEqual(expect.arrayContaining(['CreateMultipartUploadCommand', 'UploadPartCommand', 'AbortMultipartUploadCommand']));
    expect(sent).not.toContain('CompleteMultipartUploadCommand');
    expect(await store.stat(`${TASK}/output-1.mp4`)).toBeNull();

    const url = await store.presignedUrl(`${TASK}/output-0.png`, 60);
    expect(url).toMatch(/X-Amz-Expires=60/);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await whole.arrayBuffer())]).toEqual([9, 8, 7, 6]);
    const part = await fetch(url, { headers: { Range: 'bytes=1-2' } });
    expect(part.status).toBe(206);
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([8, 7]);
    store.close();
  });
});
