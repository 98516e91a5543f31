/**
 * The transaction-scoped advisory lock on a user's running slots (020), as a PL/pgSQL statement: taken
 * exclusively by what admits into the slots or moves the user's spend periods (a submission at its running
 * limit, a key's soft-threshold mail, a budget period's change), shared by a task's end that does not lock the
 * account row, so ends never wait on each other. `user`: an SQL expression of the user's id.
 */
export const slotsLock = (user: string, mode: 'exclusive' | 'shared'): string =>
  `perform pg_advisory_xact_lock${mode === 'shared' ? '_shared' : ''}(hashtextextended('gengate-slots:' || ${user}::text, 0));`;
