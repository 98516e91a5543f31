import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalBlobStore } from './local-blob-store.js';
import { createResultUrlResolver } from './result-urls.js';

const TASK = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('LocalBlobStore', () => {
  it('stores and reads back bytes with the media type of the extension', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gg-blobs-'));
    const store = new LocalBlobStore(root);
    await store.put(`${TASK}/output-0.png`, new Uint8Array([1, 2, 3]), 'image/png');
    const blob = await store.get(`${TASK}/output-0.png`);
    expect(blob && [...blob.data]).toEqual([1, 2, 3]);
    expect(blob?.mediaType).toBe('image/png');
    expect(readdirSync(join(root, TASK))).toEqual(['output-0.png']);
  });

  it('refuses keys that could escape the root and answers null for unknown keys', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gg-blobs-'));
    const store = new LocalBlobStore(root);
    await expect(store.put('../etc/passwd', new Uint8Array([1]), 'text/plain')).rejects.toThrow(/invalid blob key/);
    await expect(store.put(`${TASK}/../../x.png`, new Uint8Array([1]), 'image/png')).rejects.toThrow(/invalid blob key/);
    expect(await store.get('../etc/passwd')).toBeNull();
    expect(await store.get(`${TASK}/output-9.png`)).toBeNull();
    expect(existsSync(join(root, '..', 'etc'))).toBe(false);
  });

  it('deletes every file of a task, and only that task’s', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gg-blobs-'));
    const store = new LocalBlobStore(root);
    const other = '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed';
    await store.put(`${TASK}/output-0.png`, new Uint8Array([1]), 'image/png');
    await store.put(`${TASK}/output-1.png`, new Uint8Array([2]), 'image/png');
    await store.put(`${other}/output-0.png`, new Uint8Array([3]), 'image/png');
    await store.deleteTask(TASK);
    expect(await store.get(`${TASK}/output-0.png`)).toBeNull();
    expect(existsSync(join(root, TASK))).toBe(false);
    expect(await store.get(`${other}/output-0.png`)).not.toBeNull();
    await store.deleteTask(TASK); // nothing left: not an error
    await expect(store.deleteTask('../etc')).rejects.toThrow(/invalid task id/);
  });

  it('writes a whole body again after its task directory was deleted behind its back (ENOENT: mkdir, one retry)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gg-blobs-'));
    const store = new LocalBlobStore(root);
    await store.put(`${TASK}/output-0-aaaaaaaaaaaa.txt`, new Uint8Array([1]), 'text/plain');
    // Another process (a retention sweep) removed the task's files; this store still knows the directory.
    rmSync(join(root, TASK), { recursive: true });
    await expect(store.put(`${TASK}/output-1-aaaaaaaaaaaa.txt`, new Uint8Array([2, 3]), 'text/plain')).resolves.toEqual({ bytes: 2 });
    expect(readdirSync(join(root, TASK))).toEqual(['output-1-aaaaaaaaaaaa.txt']);
    // And after its own deleteTask.
    await store.deleteTask(TASK);
    await store.put(`${TASK}/output-0-bbbbbbbbbbbb.txt`, new Uint8Array([4]), 'text/plain');
    expect([...((await store.get(`${TASK}/output-0-bbbbbbbbbbbb.txt`))?.data ?? [])]).toEqual([4]);
  });

  it('writes a large whole body (on the thread pool, not the loop) the same way, again after its directory was deleted', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gg-blobs-'));
    const store = new LocalBlobStore(root);
    const big = new Uint8Array(200_000).fill(7);
    await expect(store.put(`${TASK}/output-0-aaaaaaaaaaaa.png`, big, 'image/png')).resolves.toEqual({ bytes: 200_000 });
    rmSync(join(root, TASK), { recursive: true });
    await expect(store.put(`${TASK}/output-1-aaaaaaaaaaaa.png`, big, 'image/png')).resolves.toEqual({ bytes: 200_000 });
    expect(readdirSync(join(root, TASK))).toEqual(['output-1-aaaaaaaaaaaa.png']);
    expect((await store.get(`${TASK}/output-1-aaaaaaaaaaaa.png`))?.data.byteLength).toBe(200_000);
  });

  it('a retried put rewrites the file, whole or streamed, and leaves no temporary file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gg-blobs-'));
    const store = new LocalBlobStore(root);
    const key = `${TASK}/output-0-aaaaaaaaaaaa.png`;
    await store.put(key, new Uint8Array([1, 2, 3, 4]), 'image/png');
    await store.put(key, new Uint8Array([9]), 'image/png');
    expect([...((await store.get(key))?.data ?? [])]).toEqual([9]);
    const chunks = async function* () {
      yield new Uint8Array([5, 6]);
      yield new Uint8Array([7]);
    };
    await expect(store.put(key, chunks(), 'image/png')).resolves.toEqual({ bytes: 3 });
    expect([...((await store.get(key))?.data ?? [])]).toEqual([5, 6, 7]);
    expect(readdirSync(join(root, TASK))).toEqual(['output-0-aaaaaaaaaaaa.png']);
  });

  it('a failed put leaves nothing behind and reports the failure', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gg-blobs-'));
    const store = new LocalBlobStore(root);
    const failing = async function* () {
      yield new Uint8Array([1, 2]);
      throw new Error('upstream went away');
    };
    await expect(store.put(`${TASK}/output-0-aaaaaaaaaaaa.png`, failing(), 'image/png')).rejects.toThrow(/upstream went away/);
    expect(readdirSync(join(root, TASK))).toEqual([]);
    // A task "directory" that is a file: neither shape can be written, and nothing is made.
    const other = '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed';
    writeFileSync(join(root, other), 'not a directory');
    await expect(store.put(`${other}/output-0-aaaaaaaaaaaa.png`, new Uint8Array([1]), 'image/png')).rejects.toThrow(/EEXIST|ENOTDIR/);
    await expect(store.put(`${other}/output-0-aaaaaaaaaaaa.png`, failing(), 'image/png')).rejects.toThrow(/EEXIST|ENOTDIR/);
    expect(readdirSync(root).sort()).toEqual([other, TASK].sort());
  });

  it('builds result URLs from a base known only after listening', () => {
    let base = '';
    const urls = createResultUrlResolver(() => base);
    base = 'http://127.0.0.1:4321';
    expect(urls.urlFor(`${TASK}/output-0.gif`)).toBe(`http://127.0.0.1:4321/api/v1/files/${TASK}/output-0.gif`);
  });
});
