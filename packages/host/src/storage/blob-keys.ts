/**
 * Result file keys: `<task_id>/output-<n>-<attempt>.<ext>`, the attempt 12 hex digits drawn by each attempt
 * at storing a task's results (so two attempts never write, or delete, the same file); `<task_id>/output-<n>.<ext>`
 * for files stored before attempts were named. The one shape every blob store accepts.
 */
export const BLOB_KEY = /^[0-9a-f-]{36}\/output-\d+(?:-[0-9a-f]{12})?\.([a-z0-9]+)$/;
/** The file name part of a result key (what `/files/{task_id}/{name}` accepts). */
export const BLOB_NAME = /^output-\d+(?:-[0-9a-f]{12})?\.[a-z0-9]+$/;
export const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The file extension of a valid key; throws on anything else (a key that could escape a root or prefix). */
export function blobKeyExtension(key: string): string {
  const m = BLOB_KEY.exec(key);
  if (!m?.[1]) throw new Error(`invalid blob key: ${key}`);
  return m[1];
}

export function assertTaskId(taskId: string): void {
  if (!TASK_ID.test(taskId)) throw new Error(`invalid task id: ${taskId}`);
}
