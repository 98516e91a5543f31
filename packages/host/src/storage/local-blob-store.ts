import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { mediaTypeForExtension, type BlobBody, type BlobStore, type StoredBlob } from '@gengate/core';

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

  /** Streams the body to a temporary file, then renames it into place: a failed stream leaves nothing behind. */
  async put(key: string, body: BlobBody, _mediaType: string): Promise<{ bytes: number }> {
    const { file } = this.path(key);
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    let bytes = 0;
    const counted = async function* (): AsyncIterable<Uint8Array> {
      if (body instanceof Uint8Array) {
        bytes = body.byteLength;
        yield body;
        return;
      }
      for await (const chunk of body) {
        bytes += chunk.byteLength;
        yield chunk;
      }
    };
    try {
      await pipeline(Readable.from(counted()), createWriteStream(tmp));
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { bytes };
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
