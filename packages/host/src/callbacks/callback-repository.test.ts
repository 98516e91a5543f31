import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../postgres/migrate.js';
import { DEFAULT_SCHEMA } from '../postgres/schema.js';
import { openPool } from '../../test/support/open-pool.js';
import { CallbackRepository } from './callback-repository.js';

/** The signing secret is the organization's (migration 028): a team organization's tasks are signed with it. */
describe('CallbackRepository: one signing secret per organization', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let close: () => Promise<void>;
  let repo: CallbackRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ pool, close } = openPool(db.url, 4));
    await runMigrations(pool, DEFAULT_SCHEMA);
    repo = new CallbackRepository(pool, DEFAULT_SCHEMA);
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await db?.drop();
  });

  const task = async (owner: string, member: string): Promise<string> => {
    const id = randomUUID();
    await pool.query(
      `insert into gengate.tasks (id, user_id, member_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro)
       values ($1, $2, $3, 'sandbox-image', 'image', 'success', '{}', 'https://example.com/hook', 0, 0)`,
      [id, owner, member],
    );
    return id;
  };

  it("signs every task of a team organization with the organization's secret, whoever submitted it; rotating changes it for all", async () => {
    const [ann, bob, team] = [randomUUID(), randomUUID(), randomUUID()];
    await pool.query(`insert into gengate.users (id, email) values ($1, 'ann@example.com'), ($2, 'bob@example.com')`, [ann, bob]);
    await pool.query(`insert into gengate.organizations (id, name) values ($1, 'team')`, [team]);
    const [byAnn, byBob] = [await task(team, ann), await task(team, bob)];

    const first = await repo.delivery(byAnn);
    const second = await repo.delivery(byBob);
    expect(first?.secret).toMatch(/^whsec_/);
    expect(second?.secret).toBe(first?.secret);
    expect(await repo.secretFor(team)).toBe(first?.secret);
    // Not a member's personal secret.
    expect(await repo.secretFor(ann)).not.toBe(first?.secret);

    const rotated = await repo.rotate(team);
    expect((await repo.delivery(byBob))?.secret).toBe(rotated);
    expect(rotated).not.toBe(first?.secret);
  });

  it("keeps a personal organization's secret its user's", async () => {
    const cat = randomUUID();
    await pool.query(`insert into gengate.users (id, email) values ($1, 'cat@example.com')`, [cat]);
    const secret = await repo.secretFor(cat);
    expect((await repo.delivery(await task(cat, cat)))?.secret).toBe(secret);
  });
});
