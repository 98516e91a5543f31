import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { mediaTypeForExtension, type BlobStore, type StoredBlob } from '@gengate/core';

const KEY = /^[0-9a-f-]{36}\/output-\d+\.([a-z0-9]+)$/;
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Result files on the local filesystem: `<root>/<task_id>/output-<n>.<ext>`, written atomically. */
export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(key: string): { file: string; ext: string } {
    const m = KEY.exec(key);
    if (!m?.[1]) throw new Error(`invalid blob key: ${key}`);
    return { file: join(this.root, key), ext: m[1] };
  }

  async put(key: string, data: Uint8Array, _mediaType: string): Promise<void> {
    const { file } = this.path(key);
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, file);
  }

  async deleteTask(taskId: string): Promise<void> {
    if (!TASK_ID.test(taskId)) throw new Error(`invalid task id: ${taskId}`);
    await rm(join(this.root, taskId), { recursive: true, force: true });
  }

  async get(key: string): Promise<StoredBlob | null> {
    if (!KEY.test(key)) return null;
    const { file, ext } = this.path(key);
    try {
      return { data: new Uint8Array(await readFile(file)), mediaType: mediaTypeForExtension(ext) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
