import type { BlobStore } from '@gengate/core';

/**
 * Deletes the stored files of a task that did not succeed (a cancelled or failed task whose worker
 * stored its outputs anyway). Results belong to successful tasks only. Safe to call more than once.
 */
export async function deleteTaskFiles(blobs: BlobStore, taskId: string): Promise<void> {
  await blobs.deleteTask(taskId);
}
