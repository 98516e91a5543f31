import type { TaskOutputFile, TaskRecord } from '../model/task.js';
import type { BlobStore, StoredBlob } from '../ports/blob-store.js';

/**
 * The bytes of one of a task's outputs, wherever they are kept: an inline output's from the task's own
 * record (`outputBodies`), any other from the blob store. Null when they are gone (deleted, or a record
 * read without its bodies). Every reader of a result's bytes goes through here.
 */
export async function readOutput(
  blobs: Pick<BlobStore, 'get'>,
  task: Pick<TaskRecord, 'outputs' | 'outputBodies'>,
  output: TaskOutputFile,
): Promise<StoredBlob | null> {
  if (!output.inline) return blobs.get(output.key);
  const data = task.outputBodies?.[task.outputs.findIndex((o) => o.key === output.key)] ?? null;
  return data ? { data, mediaType: output.mediaType } : null;
}
