import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import type { BlobBody, BlobInfo, BlobStore, ByteRange, OpenedBlob, StoredBlob } from '@gengate/core';
import { mediaTypeForExtension } from '@gengate/core/adapter';
import { inject, injectable } from 'inversify';
import { HOST_TOKENS } from '../host-tokens.js';
import { assertTaskId, BLOB_KEY, blobKeyExtension } from './blob-keys.js';


/**
 * Result files on the local filesystem: `<root>/<task_id>/output-<n>-<attempt>.<ext>`, written atomically and read
 * as streams (a range with `createReadStream({ start, end })`), never whole for serving.
 */
@injectable()
export class LocalBlobStore implements BlobStore {
  constructor(@inject(HOST_TOKENS.FilesDir) private readonly root: string) {}

  private path(key: string): { file: string; ext: string } {
    return { file: join(this.root, key), ext: blobKeyExtension(key) };
  }

  /** Streams the body to a temporary file, then renames it into place: a failed stream leaves nothing behind. */
  async put(key: string, body: BlobBody, _mediaType: string): Promise<{ bytes: number }> {
    const { file } = this.path(key);
    await mkdir(dirname(file), { recursive: true });
    if (body instanceof Uint8Array) {
      // Whole bodies (chat text, most images) in one write, no stream and no rename: a file is served
      // only once its task's success has committed, which follows this put, and a retried put rewrites it.
      try {
        await writeFile(file, body);
      } catch (err) {
        await rm(file, { force: true });
        throw err;
      }
      return { bytes: body.byteLength };
    }
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    let bytes = 0;
    const chunks = body;
    const counted = async function* (): AsyncIterable<Uint8Array> {
      for await (const chunk of chunks) {
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
    assertTaskId(taskId);
    await rm(join(this.root, taskId), { recursive: true, force: true });
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await rm(this.path(key).file, { force: true });
  }

  async stat(key: string): Promise<BlobInfo | null> {
    if (!BLOB_KEY.test(key)) return null;
    const { file, ext } = this.path(key);
    try {
      return { size: (await stat(file)).size, mediaType: mediaTypeForExtension(ext) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Opens the file once and reads size and bytes from that descriptor (a file replaced meanwhile cannot mix). */
  async open(key: string, range?: ByteRange): Promise<OpenedBlob | null> {
    if (!BLOB_KEY.test(key)) return null;
    const { file, ext } = this.path(key);
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const size = (await handle.stat()).size;
      // The stream owns the descriptor from here: it closes it at the end, on error and when destroyed.
      const body = handle.createReadStream(range ? { start: range.start, end: range.end, autoClose: true } : { autoClose: true });
      return { body, size, mediaType: mediaTypeForExtension(ext), range: range ?? null };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async get(key: string): Promise<StoredBlob | null> {
    if (!BLOB_KEY.test(key)) return null;
    const { file, ext } = this.path(key);
    try {
      return { data: new Uint8Array(await readFile(file)), mediaType: mediaTypeForExtension(ext) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
