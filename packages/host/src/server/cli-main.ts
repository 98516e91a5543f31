import { Command, InvalidArgumentError, Option } from 'commander';
import { AdminService, isGatewayError } from '@gengate/core';
import { randomUUID } from 'node:crypto';
import { createPgStores } from '../postgres/pg-unit-of-work.js';
import { setUserRole } from './cli-user-role.js';
import { ConfigError, loadConfig, maskSecrets, secretValues, type GengateConfig, type ServerRole } from './config.js';
import { openDatabase } from './database.js';
import { createLogger } from './logger.js';
import { loadProviders, logProviderStatus, providerEnvironment } from './providers.js';
import { startServer } from './start-server.js';

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number >= 0');
  return n;
}

function config(): GengateConfig {
  return loadConfig(process.env);
}

/** Runs an operator command against the database (embedded or DATABASE_URL) and prints its JSON result. */
async function withAdmin<T>(fn: (admin: AdminService) => Promise<T>): Promise<void> {
  const cfg = config();
  // Admin commands log to stderr only at warn level so stdout stays pure JSON.
  const logger = createLogger({ level: 'warn', destination: process.stderr, secrets: secretValues() });
  const db = await openDatabase(cfg, logger);
  try {
    const { unitOfWork } = createPgStores(db.pool, null, { schema: db.schema });
    const result = await fn(new AdminService(unitOfWork, { uuid: () => randomUUID() }));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await db.close();
  }
}

const program = new Command()
  .name('gengate')
  .description('gengate: one asynchronous HTTP API over many AI generation providers');

program
  .command('serve')
  .description('start the HTTP API and the generation worker (embedded PostgreSQL unless DATABASE_URL is set)')
  .addOption(
    new Option('--role <role>', 'api: HTTP only; worker: the workers, serving only /healthz; all: both (default: ROLE, else all)').choices(['api', 'worker', 'all']),
  )
  .action(async (opts: { role?: ServerRole }) => {
    const cfg = config();
    const providers = loadProviders(providerEnvironment(process.env));
    const logger = createLogger({ level: cfg.logLevel, secrets: [...secretValues(), ...providers.secrets] });
    logProviderStatus(logger, providers.status);
    const server = await startServer(cfg, { logger, extraAdapters: providers.adapters, secrets: providers.secrets, ...(opts.role ? { role: opts.role } : {}) });
    if (server.role === 'worker') process.stdout.write(`gengate worker is running; health at ${server.url}/healthz (port ${server.port})\n`);
    else process.stdout.write(`gengate is serving ${server.url}/api/v1 (port ${server.port})\n`);
    if (server.dashboardUrl) process.stdout.write(`gengate dashboard: ${server.dashboardUrl}\n`);
    const shutdown = (signal: string) => {
      logger.info({ signal, graceMs: cfg.shutdownGraceMs }, 'shutting down');
      // A last resort: close() keeps to the grace itself; nothing may keep the process past it.
      setTimeout(() => {
        logger.error({ signal }, 'shutdown overran its grace; exiting');
        process.exit(1);
      }, cfg.shutdownGraceMs + 1_500).unref();
      server.close().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });

program
  .command('migrate')
  .description('apply database migrations and exit')
  .action(async () => {
    const cfg = config();
    const logger = createLogger({ level: cfg.logLevel, destination: process.stderr, secrets: secretValues() });
    const db = await openDatabase(cfg, logger);
    await db.close();
    process.stdout.write(`${JSON.stringify({ migrated: true })}\n`);
  });

const users = program.command('users').description('manage users');
users
  .command('create')
  .description('create a user and print its first API key as JSON: {"user_id": ..., "key": ...} ("api_key": the same value, deprecated, removed in 0.2)')
  .requiredOption('--email <email>', 'the user e-mail address')
  .option('--credits <credits>', 'starting credits (100 credits = 1 USD)', nonNegativeNumber, 0)
  .action(async (opts: { email: string; credits: number }) => {
    await withAdmin((admin) => admin.createUser({ email: opts.email, credits: opts.credits }));
  });

users
  .command('role')
  .description('make a user an operator of the dashboard (--operator) or a plain user again (--no-operator); prints {"user_id", "email", "role"}')
  .requiredOption('--email <email>', 'the user e-mail address')
  .option('--operator', 'give the operator role')
  .option('--no-operator', 'take the operator role away')
  .action(async (opts: { email: string; operator?: boolean }) => {
    if (opts.operator === undefined) throw new InvalidArgumentError('say --operator or --no-operator');
    const cfg = config();
    const logger = createLogger({ level: 'warn', destination: process.stderr });
    const db = await openDatabase(cfg, logger);
    try {
      process.stdout.write(`${JSON.stringify(await setUserRole(db.pool, db.schema, opts.email, opts.operator ? 'operator' : 'user'))}\n`);
    } finally {
      await db.close();
    }
  });

const credits = program.command('credits').description('manage credits');
credits
  .command('grant')
  .description('grant credits to a user (a completed "grant" transaction)')
  .requiredOption('--user <user_id>', 'the user id')
  .requiredOption('--credits <credits>', 'credits to add', positiveNumber)
  .action(async (opts: { user: string; credits: number }) => {
    await withAdmin((admin) => admin.grantCredits(opts.user, opts.credits));
  });

const topups = program.command('topups').description('manual payment processor');
topups
  .command('complete')
  .description('complete a pending manual top-up (credits the user exactly once)')
  .argument('<transaction_id>', 'the transaction id returned by POST /api/v1/billing/topup')
  .action(async (transactionId: string) => {
    await withAdmin((admin) => admin.completePurchase(transactionId));
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  // Whatever failed, no Stripe key or password it may quote is printed.
  const write = (text: string) => process.stderr.write(maskSecrets(text, secretValues()));
  if (err instanceof ConfigError) write(`Invalid configuration:\n${err.message}\n`);
  else if (isGatewayError(err)) write(`${err.type}: ${err.message}\n`);
  else write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
