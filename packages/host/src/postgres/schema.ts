/** The PostgreSQL schema gengate's tables, functions and triggers live in, unless configured otherwise. */
export const DEFAULT_SCHEMA = 'gengate';

/**
 * A schema name gengate accepts: a plain lowercase identifier (letters, digits, underscores; at most 63
 * bytes). Such a name reads the same quoted or not, so SQL is built by interpolating it (pg-boss's manner:
 * `${schema}.tasks`). Reserved words (which would need quotes) are refused by runMigrations.
 */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The name, if it is one gengate accepts; throws otherwise. Call once where a schema enters (options, config). */
export function checkSchemaName(name: string): string {
  if (!SCHEMA_NAME.test(name)) {
    throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(name)}: use a lowercase identifier (a-z, 0-9, _; not starting with a digit; at most 63 characters)`);
  }
  return name;
}

/** An SQL identifier in double quotes (a schema or table name that may not be one gengate chose itself). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
