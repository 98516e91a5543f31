import type pg from 'pg';

/** How to open a dedicated PostgreSQL connection (pg-boss, LISTEN): a URL, or the settings of an existing pool. */
export type ConnectionSettings =
  | string
  | {
      readonly connectionString?: string;
      readonly host?: string;
      readonly port?: number;
      readonly user?: string;
      readonly password?: string;
      readonly database?: string;
      readonly ssl?: pg.ClientConfig['ssl'];
    };

/** The connection settings of a pool an embedder made, so that gengate's own connections reach the same database. */
export function connectionSettingsOf(pool: pg.Pool): ConnectionSettings {
  const o = pool.options;
  return {
    ...(o.connectionString !== undefined ? { connectionString: o.connectionString } : {}),
    ...(o.host !== undefined ? { host: o.host } : {}),
    ...(o.port !== undefined ? { port: o.port } : {}),
    ...(o.user !== undefined ? { user: o.user } : {}),
    ...(typeof o.password === 'string' ? { password: o.password } : {}),
    ...(o.database !== undefined ? { database: o.database } : {}),
    ...(o.ssl !== undefined ? { ssl: o.ssl } : {}),
  };
}

/** As pg.Client / pg-boss options. */
export function asClientConfig(c: ConnectionSettings): pg.ClientConfig {
  return typeof c === 'string' ? { connectionString: c } : { ...c };
}
