import type { BlobStore, TaskStore } from '@gengate/core';

/**
 * Deletes the stored files of a task that did not succeed (a cancelled or failed task whose worker
 * stored its outputs anyway). Results belong to successful tasks only. Safe to call more than once.
 * (A task that did not succeed has no inline outputs: they are written by the success itself.)
 */
export async function deleteTaskFiles(blobs: BlobStore, taskId: string): Promise<void> {
  await blobs.deleteTask(taskId);
}

/**
 * Deletes a successful task's results on its owner's request (a deleted stored response, a deleted
 * video): its files in the blob store and its inline outputs' bytes. The task and its outputs' list stay.
 */
export async function deleteTaskResults(blobs: BlobStore, tasks: Pick<TaskStore, 'deleteOutputBodies'>, taskId: string): Promise<void> {
  await blobs.deleteTask(taskId);
  await tasks.deleteOutputBodies(taskId);
}
