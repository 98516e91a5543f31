export interface Migration {
  readonly version: number;
  readonly name: string;
  /** The migration's SQL for gengate's schema (a plain identifier, see schema.ts): every name in it qualified. */
  readonly up: (schema: string) => string;
}
