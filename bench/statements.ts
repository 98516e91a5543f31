/**
 * npm run bench:statements — statements per chat task (docs/benchmarks.md, "Statements per task"): every
 * statement the host's pg clients send while 50 zero-latency sandbox chats are submitted over HTTP and run
 * by the worker in the same process, BEGIN/COMMIT and pg-boss's own included, broken down by kind.
 * `-- --tasks N`, `-- --callback` (each task with a callback_url, delivered to a local receiver).
 * PostgreSQL: a fresh database on DATABASE_URL's server, else an embedded one.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countStatementsPerTask, formatStatementCount } from '../packages/host/test/support/statement-count.js';
import { scratchDatabase } from '../scripts/support/scratch-database.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

async function main(): Promise<void> {
  const tasks = Number(arg('--tasks') ?? 50);
  const db = await scratchDatabase();
  const receiver = process.argv.includes('--callback') ? createServer((_req, res) => res.end('ok')) : null;
  try {
    let callbackUrl: string | undefined;
    if (receiver) {
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    }
    const count = await countStatementsPerTask(db.url, { tasks, ...(callbackUrl ? { callbackUrl } : {}) });
    process.stdout.write(`${formatStatementCount(count)}\n`);
  } finally {
    receiver?.close();
    await db.close();
  }
}

await main();
