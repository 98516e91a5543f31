import { readOutput, type BlobStore, type TaskOutputFile, type TaskRecord } from '@gengate/core';

/** Where a result file is read from for serving: `stat` and `open` as the blob store answers them. */
export type OutputSource = Pick<BlobStore, 'stat' | 'open'>;

/**
 * The source of one of a task's outputs: the blob store, or, for an inline output, its bytes in the task
 * record already read (readOutput), answering `stat` and `open` (a range included) as a store would, so
 * that the same code serves both (headers, Range, HEAD).
 */
export function outputSource(blobs: BlobStore, task: Pick<TaskRecord, 'outputs' | 'outputBodies'>, output: TaskOutputFile): OutputSource {
  if (!output.inline) return blobs;
  const read = () => readOutput(blobs, task, output);
  return {
    stat: async () => {
      const blob = await read();
      return blob && { size: blob.data.byteLength, mediaType: blob.mediaType };
    },
    open: async (_key, range) => {
      const blob = await read();
      if (!blob) return null;
      const part = range ? blob.data.subarray(range.start, range.end + 1) : blob.data;
      return { size: blob.data.byteLength, mediaType: blob.mediaType, range: range ?? null, body: once(part) };
    },
  };
}

async function* once(data: Uint8Array): AsyncIterable<Uint8Array> {
  yield data;
}
