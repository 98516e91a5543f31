import { contractAdapter, ledgerViolations, MONEY_CONTRACT_SCHEDULING, MoneyClock, MoneyDriver, openMemoryMoneyImplementation, type MoneyCommand } from '@gengate/testing/host';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgMoneyHarness } from './support/pg-money-implementation.js';

/**
 * The differential test of issue 23: random command sequences over several users run side by side on
 * the memory implementation (core's TypeScript rules) and the PostgreSQL one (PgTaskIntake,
 * PgTaskCompletion and the SQL functions behind them). After EVERY step both must have answered alike and
 * hold the same transactions, balances, holds, alerts, queued jobs and task states (ids and timestamps
 * normalised), and the ledger invariant must hold on both. At the end of each sequence both answer
 * the same usage (GET /usage's figures) for every user.
 *
 * MONEY_DIFF_RUNS sets the number of sequences (default 1,000), MONEY_DIFF_SEED replays a run (the seed
 * is printed at the start and, with the shrunk sequence, in the failure).
 */
const RUNS = Number(process.env['MONEY_DIFF_RUNS'] ?? 1_000);
const SEED = process.env['MONEY_DIFF_SEED'] !== undefined ? Number(process.env['MONEY_DIFF_SEED']) : Date.now() ^ Math.floor(Math.random() * 0x7fffffff);

const user = fc.nat({ max: 2 });
const pick = fc.nat({ max: 6 });
const command: fc.Arbitrary<MoneyCommand> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('submit'),
      user,
      images: fc.integer({ min: 1, max: 4 }),
      key: fc.option(fc.constantFrom('a', 'b'), { nil: null, freq: 2 }),
      callback: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resubmit'), pick, sameBody: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('start'), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retry'), pick }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('succeed'), pick, chargePermille: fc.option(fc.integer({ min: 0, max: 1_500 }), { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fail'), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel'), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revoke'), user, reissue: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('topup'), user, usd: fc.integer({ min: 1, max: 2 }), complete: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('alert'), user, thresholdCredits: fc.option(fc.integer({ min: 1, max: 24 }), { nil: null }) }) },
  // Issue 22: the key's spend controls, its allow-list, and the clock crossing budget periods.
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('budget'),
      user,
      limitCredits: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null, freq: 4 }),
      period: fc.constantFrom('day', 'week', 'month', 'none'),
      maxConcurrent: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      softPercent: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('allow'), user, models: fc.constantFrom('contract', 'other', null) }) },
  // The member's spend limit in their personal organization (docs/organizations.md), checked after the key's.
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('member'),
      user,
      limitCredits: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null, freq: 4 }),
      period: fc.constantFrom('day', 'week', 'month', 'none'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance'), hours: fc.constantFrom(1, 14, 24, 24 * 7, 24 * 31) }) },
);
/** Starting credits per user: few, so refusals and alert crossings are common. */
const users = fc.array(fc.integer({ min: 0, max: 14 }), { minLength: 2, maxLength: 3 });

describe('money differential: memory and PostgreSQL agree after every step of random sequences', () => {
  let pg: Awaited<ReturnType<typeof openPgMoneyHarness>>;

  beforeAll(async () => {
    pg = await openPgMoneyHarness();
  });
  afterAll(async () => {
    await pg?.close();
  });

  it(`${RUNS} sequences of submit, resubmit, start, retry, succeed, fail, cancel, revoke, top-up, alert, key budget, allow-list, member limit and clock commands`, { timeout: 1_800_000 }, async () => {
    console.info(`money differential: ${RUNS} sequences, seed ${SEED} (replay: MONEY_DIFF_SEED=${SEED})`);
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(users, fc.array(command, { minLength: 1, maxLength: 10 }), async (credits, commands) => {
        // Each side its own clock, moved alike by the 'advance' commands.
        const memoryConfig = { adapters: [contractAdapter()], scheduling: MONEY_CONTRACT_SCHEDULING, clock: new MoneyClock() };
        const pgConfig = { ...memoryConfig, clock: new MoneyClock() };
        const memory = new MoneyDriver(await openMemoryMoneyImplementation(memoryConfig), memoryConfig);
        const postgres = new MoneyDriver(await pg.open(pgConfig), pgConfig);
        for (const c of credits) {
          await memory.addUser(c);
          await postgres.addUser(c);
        }
        for (const [i, c] of commands.entries()) {
          const answers = { memory: await memory.run(c), postgres: await postgres.run(c) };
          const at = `step ${i} ${JSON.stringify(c)}`;
          expect(answers.postgres, `${at}: answers`).toBe(answers.memory);
          const [m, p] = [await memory.state(), await postgres.state()];
          expect(p, `${at}: PostgreSQL's state (expected: memory's)`).toEqual(m);
          expect(ledgerViolations(m), `${at}: ledger invariant`).toEqual([]);
          expect(ledgerViolations(p), `${at}: ledger invariant`).toEqual([]);
          steps++;
        }
        // The usage each user sees (issue 22): the memory reader and PostgreSQL's rollups give the same figures
        // (latencies aside: they are the implementations' own clock readings).
        for (const [u] of credits.entries()) {
          const figures = async (d: MoneyDriver) => {
            const { report } = await d.impl.gengate.usage.forCaller(d.authOf(`u${u}`), { group_by: 'model' });
            return [...report.data, report.totals].map(({ latency_p50_ms: _p50, latency_p95_ms: _p95, ...rest }) => rest);
          };
          expect(await figures(postgres), `u${u}: PostgreSQL's usage (expected: memory's)`).toEqual(await figures(memory));
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    console.info(`money differential: ${RUNS} sequences, ${steps} steps compared`);
    expect(steps).toBeGreaterThanOrEqual(RUNS);
  });
});
