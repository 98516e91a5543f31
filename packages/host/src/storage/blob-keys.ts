/** Result file keys: `<task_id>/output-<n>.<ext>` (the one shape every blob store accepts). */
export const BLOB_KEY = /^[0-9a-f-]{36}\/output-\d+\.([a-z0-9]+)$/;
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
