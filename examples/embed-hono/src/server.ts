import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from './create-app.js';

/** `node dist/server.js`: DATABASE_URL (required), PORT (3000), HOST (127.0.0.1), PUBLIC_URL, FILES_DIR. */
const databaseUrl = process.env['DATABASE_URL'];
if (!databaseUrl) {
  process.stderr.write('DATABASE_URL is required (a postgres:// URL)\n');
  process.exit(1);
}
const hostname = process.env['HOST'] ?? '127.0.0.1';
let publicUrl = process.env['PUBLIC_URL']?.replace(/\/+$/, '') ?? '';

const app = await createApp({ databaseUrl, publicUrl: () => publicUrl, filesDir: process.env['FILES_DIR'] ?? join(process.cwd(), '.data', 'files') });
await app.start();
const server = serve({ fetch: app.app.fetch, port: Number(process.env['PORT'] ?? 3000), hostname }, (info) => {
  if (!publicUrl) publicUrl = `http://${hostname}:${info.port}`;
  process.stdout.write(`embed-hono listening on ${publicUrl} (gengate at ${publicUrl}/api/v1 and ${publicUrl}/v1)\n`);
});

const shutdown = () => {
  server.close(() =>
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    ),
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
