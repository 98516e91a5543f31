const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths are checked before any store sees them: a malformed id is a 404, never a database error. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
