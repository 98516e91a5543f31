import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFile, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import type { BlobBody, BlobInfo, BlobStore, ByteRange, OpenedBlob, StoredBlob } from '@gengate/core';
import { mediaTypeForExtension } from '@gengate/core/adapter';
import { inject, injectable } from 'inversify';
import { HOST_TOKENS } from '../host-tokens.js';
import { assertTaskId, BLOB_KEY, blobKeyExtension } from './blob-keys.js';


/**
 * Whole bodies up to this size (chat text, small images) are written synchronously: mkdir, open, write and
 * close as four system calls of the event loop's thread, where the thread pool costs each of them a hand-off
 * and a wake-up (futex, eventfd, epoll: ~26 system calls per chat result, more than half of a pipeline
 * task's, docs/benchmarks-history.md). On a local disk these land in the page cache in microseconds; a slow or
 * network filesystem would make the loop wait: use the S3 store there. Larger bodies stay on the pool.
 */
const SYNC_WRITE_MAX = 64 * 1024;

/** Task directories this store remembers having made (a bounded set: forgetting one costs one mkdir). */
const KNOWN_DIRS = 512;

/**
 * One write of a whole file: open, write, close (fs.writeFile's callback form: three thread-pool trips, no
 * FileHandle object as fs/promises makes).
 */
function writeWhole(file: string, data: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => writeFile(file, data, (err) => (err ? reject(err) : resolve())));
}

function writeWholeSync(file: string, data: Uint8Array): void {
  writeFileSync(file, data);
}

function isEnoent(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/**
 * Result files on the local filesystem: `<root>/<task_id>/output-<n>-<attempt>.<ext>`, written atomically and read
 * as streams (a range with `createReadStream({ start, end })`), never whole for serving.
 */
@injectable()
export class LocalBlobStore implements BlobStore {
  /** Task directories made by this store and not deleted by it since (insertion order: the oldest goes first). */
  private readonly dirs = new Set<string>();

  constructor(@inject(HOST_TOKENS.FilesDir) private readonly root: string) {}

  private path(key: string): { file: string; ext: string } {
    return { file: join(this.root, key), ext: blobKeyExtension(key) };
  }

  private made(dir: string): void {
    this.dirs.add(dir);
    if (this.dirs.size > KNOWN_DIRS) this.dirs.delete(this.dirs.values().next().value ?? dir);
  }

  private makeDirSync(dir: string): void {
    mkdirSync(dir, { recursive: true });
    this.made(dir);
  }

  private async makeDir(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    this.made(dir);
  }

  /**
   * A whole body (chat text, most images) in one write under its final name, no stream and no rename: a file
   * is served only once its task's success has committed, which follows this put, and a retried put rewrites
   * it. A stream goes to a temporary file renamed into place. Either way a failed put leaves nothing behind.
   * The task's directory is made first when this store has not made it already (a new task: one mkdir is
   * cheaper than a failed open and a mkdir); else the write is tried first and, on ENOENT (another process
   * deleted the task's files meanwhile), the directory made and the write retried once.
   */
  async put(key: string, body: BlobBody, _mediaType: string): Promise<{ bytes: number }> {
    const { file } = this.path(key);
    const dir = dirname(file);
    if (body instanceof Uint8Array) {
      // A small body on the loop's own thread (its system calls only); a larger one on the thread pool.
      const small = body.byteLength <= SYNC_WRITE_MAX;
      const write = small ? writeWholeSync : writeWhole;
      const makeDir = small ? (d: string) => this.makeDirSync(d) : (d: string) => this.makeDir(d);
      try {
        if (!this.dirs.has(dir)) await makeDir(dir);
        try {
          await write(file, body);
        } catch (err) {
          if (!isEnoent(err)) throw err;
          this.dirs.delete(dir);
          await makeDir(dir);
          await write(file, body);
        }
      } catch (err) {
        // What a failed write left (a part of the body); the write's own error is the one reported.
        await rm(file, { force: true }).catch(() => undefined);
        throw err;
      }
      return { bytes: body.byteLength };
    }
    await mkdir(dir, { recursive: true });
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
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    return { bytes };
  }

  async deleteTask(taskId: string): Promise<void> {
    assertTaskId(taskId);
    const dir = join(this.root, taskId);
    this.dirs.delete(dir);
    await rm(dir, { recursive: true, force: true });
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
