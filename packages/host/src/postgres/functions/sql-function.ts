/**
 * One SQL function of gengate (a money rule, a trigger function, a job helper), defined once in its current
 * form: functions/index.ts lists them and function-set.ts keeps the database's set equal to the list.
 */
export interface SqlFunction {
  /** The function's name in gengate's schema (always `gengate_` + what it does). */
  readonly name: string;
  /**
   * Its argument types in order (PostgreSQL's identity signature, type aliases allowed: `timestamptz`):
   * with the name it is the function's identity; one not in the set is dropped as stale.
   */
  readonly identityArgs: string;
  /** `create or replace function <schema>.<name>(…) …`, every name qualified with the schema (schema.ts). */
  readonly sql: (schema: string) => string;
}
