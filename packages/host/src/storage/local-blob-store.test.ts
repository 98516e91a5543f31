import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
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

  it('builds result URLs from a base known only after listening', () => {
    let base = '';
    const urls = createResultUrlResolver(() => base);
    base = 'http://127.0.0.1:4321';
    expect(urls.urlFor(`${TASK}/output-0.gif`)).toBe(`http://127.0.0.1:4321/api/v1/files/${TASK}/output-0.gif`);
  });
});
