import { join } from 'node:path';
import pino from 'pino';
import { createApp, GENGATE_MOUNT } from './create-app.js';

/**
 * `node dist/server.js`: DATABASE_URL (required), PORT (3000), HOST (127.0.0.1), PUBLIC_URL, FILES_DIR,
 * SIGNUP_CREDITS, GENGATE_WORKERS (true; false: this process serves HTTP and leaves gengate's jobs to others).
 */
const databaseUrl = process.env['DATABASE_URL'];
if (!databaseUrl) {
  process.stderr.write('DATABASE_URL is required (a postgres:// URL)\n');
  process.exit(1);
}
const host = process.env['HOST'] ?? '127.0.0.1';
let publicUrl = process.env['PUBLIC_URL']?.replace(/\/+$/, '') ?? '';
const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });

const app = await createApp({
  databaseUrl,
  publicUrl: () => publicUrl,
  filesDir: process.env['FILES_DIR'] ?? join(process.cwd(), '.data', 'files'),
  signupCredits: Number(process.env['SIGNUP_CREDITS'] ?? 10),
  logger,
});
await app.start({ workers: process.env['GENGATE_WORKERS'] !== 'false' });
const server = app.app.listen(Number(process.env['PORT'] ?? 3000), host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  if (!publicUrl) publicUrl = `http://${host}:${port}`;
  process.stdout.write(`embed-express listening on ${publicUrl} (gengate at ${publicUrl}${GENGATE_MOUNT})\n`);
});

const shutdown = () => {
  server.close(() =>
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    ),
  );
  server.closeIdleConnections();
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
