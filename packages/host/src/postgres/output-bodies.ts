import type { OutputBodies } from '@gengate/core';

/**
 * A task's inline output bodies as the text of a PostgreSQL `bytea[]` (`{"\\x6869",NULL}`), or null when
 * there are none: the same text is the argument of one success (cast by the function's parameter) and one
 * element of the batched successes' `text[]` (an array of arrays of different lengths cannot be unnested).
 */
export function outputBodiesParam(bodies: OutputBodies | undefined): string | null {
  if (!bodies || bodies.every((b) => b === null)) return null;
  return `{${bodies.map((b) => (b === null ? 'NULL' : `"\\\\x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}"`)).join(',')}}`;
}

/** The column as node-postgres reads it (Buffers, nulls), as the record carries it; absent when null. */
export function outputBodiesOf(column: readonly (Uint8Array | null)[] | null | undefined): { outputBodies?: OutputBodies } {
  return column ? { outputBodies: column } : {};
}
