import { randomBytes, randomUUID } from 'node:crypto';
import type {
  ApiKeyRecord,
  JsonValue,
  NewApiKey,
  RunRequest,
  TaskRecord,
  TransactionRecord,
  TransactionScope,
  UnitOfWork,
  UserRecord,
} from '@gengate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What a store implementation hands the suite: the stores outside any transaction, and its unit of work. */
export interface StoreConformanceHarness {
  /** The stores, each call committing on its own (what createGengate calls `stores`). */
  readonly scope: TransactionScope;
  readonly uow: UnitOfWork;
  /** Releases everything the factory opened (connections, databases). */
  cleanup(): Promise<void>;
}

/** Checks to switch off for implementations that do not have the property (the memory stores do not roll back). */
export type StoreConformanceSkip = 'rollback';

export interface StoreConformanceOptions {
  readonly skip?: readonly StoreConformanceSkip[];
}

/** Thrown inside a unit of work by the rollback checks. */
class DeliberateFailure extends Error {
  constructor() {
    super('deliberate failure inside a unit of work');
    this.name = 'DeliberateFailure';
  }
}

const REQUEST: RunRequest = { prompt: 'store conformance: a small red square' };

/** Resolves once Date.now() has moved past its value at the call: rows created after it get a later timestamp. */
async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  const until = start + 1_000;
  while (Date.now() <= start + 1) {
    if (Date.now() > until) throw new Error('the clock did not advance');
    await new Promise((r) => setTimeout(r, 1));
  }
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * The store conformance suite (in the style of better-auth's adapter tests): every method of the
 * store ports (packages/core/src/ports/stores.ts) is checked against its documented contract, so a
 * new storage back end can prove it behaves like the reference ones.
 *
 * `factory` is called once for the suite (beforeAll) and `cleanup` once at its end; every test
 * creates its own users with random ids and e-mails, so tests never depend on each other's rows.
 */
export function describeStoreConformance(
  name: string,
  factory: () => Promise<StoreConformanceHarness>,
  options: StoreConformanceOptions = {},
): void {
  const skip = new Set(options.skip ?? []);

  describe(`store conformance: ${name}`, () => {
    let harness: StoreConformanceHarness | null = null;

    beforeAll(async () => {
      harness = await factory();
    });

    afterAll(async () => {
      await harness?.cleanup();
      harness = null;
    });

    const h = (): StoreConformanceHarness => {
      if (!harness) throw new Error('the store factory did not run');
      return harness;
    };
    const stores = (): TransactionScope => h().scope;

    // ---------- fixtures ----------

    async function newUser(emailLocal = `user-${hex(6)}`): Promise<UserRecord> {
      const user = await stores().users.insert({ id: randomUUID(), email: `${emailLocal}@example.com` });
      await stores().ledger.openAccount(user.id);
      return user;
    }

    function keyFor(userId: string, patch: Partial<NewApiKey> = {}): NewApiKey {
      return {
        id: randomUUID(),
        userId,
        name: 'conformance key',
        secretHash: hex(32),
        mask: 'gg_live_…abcd',
        limits: { perMinute: null, perHour: null, perDay: null },
        ipWhitelist: [],
        ...patch,
      };
    }

    function taskFor(userId: string, quotedMicro = 0, id = randomUUID()) {
      return {
        id,
        userId,
        apiKeyId: null,
        modelId: 'conformance.image',
        modality: 'image' as const,
        request: REQUEST,
        callbackUrl: null,
        quotedMicro,
      };
    }

    async function newTask(userId: string, quotedMicro = 0): Promise<TaskRecord> {
      return stores().tasks.insert(taskFor(userId, quotedMicro));
    }

    /** Holds, then inserts the task, in one unit of work: the order SubmitRun uses. */
    async function holdTask(userId: string, amountMicro: number): Promise<string> {
      const taskId = randomUUID();
      await h().uow.run(async (tx) => {
        await tx.ledger.hold(userId, taskId, amountMicro);
        await tx.tasks.insert(taskFor(userId, amountMicro, taskId));
      });
      return taskId;
    }

    async function grant(userId: string, creditsMicro: number, description = 'conformance grant'): Promise<TransactionRecord> {
      return stores().ledger.record({
        userId,
        creditsMicro,
        amountMicroUsd: 0,
        paymentMethod: 'grant',
        status: 'completed',
        description,
      });
    }

    async function allTransactions(userId: string): Promise<TransactionRecord[]> {
      const out: TransactionRecord[] = [];
      for (let page = 1; ; page++) {
        const p = await stores().ledger.listTransactions(userId, page, 50);
        out.push(...p.items);
        if (p.items.length < 50) {
          expect(out.length).toBe(p.total);
          return out;
        }
      }
    }

    /** The ledger invariant: the balance is the sum of the completed transactions, and nothing negative is held. */
    async function expectLedgerInvariant(userId: string): Promise<void> {
      const txs = await allTransactions(userId);
      const sum = txs.filter((t) => t.status === 'completed').reduce((s, t) => s + t.creditsMicro, 0);
      const balance = await stores().ledger.getBalance(userId);
      expect(balance.balanceMicro).toBe(sum);
      expect(balance.heldMicro).toBeGreaterThanOrEqual(0);
    }

    async function usageOf(userId: string, taskId: string): Promise<TransactionRecord[]> {
      return (await allTransactions(userId)).filter((t) => t.taskId === taskId && t.paymentMethod === 'usage');
    }

    async function expectInsufficient(p: Promise<unknown>): Promise<void> {
      await expect(p).rejects.toMatchObject({ name: 'GatewayError', type: 'insufficient_credits' });
    }

    // ---------- users ----------

    describe('users', () => {
      it('insert returns the record and findById finds it; an unknown id is null', async () => {
        const id = randomUUID();
        const email = `insert-${hex(4)}@example.com`;
        const user = await stores().users.insert({ id, email });
        expect(user).toMatchObject({ id, email });
        expect(user.createdAt).toBeInstanceOf(Date);
        expect(await stores().users.findById(id)).toEqual(user);
        expect(await stores().users.findById(randomUUID())).toBeNull();
      });

      it('findByEmail ignores case and returns null for an unknown address', async () => {
        const local = `Mixed.Case-${hex(4)}`;
        const user = await stores().users.insert({ id: randomUUID(), email: `${local}@Example.COM` });
        expect((await stores().users.findByEmail(`${local.toLowerCase()}@example.com`))?.id).toBe(user.id);
        expect((await stores().users.findByEmail(`${local.toUpperCase()}@EXAMPLE.COM`))?.id).toBe(user.id);
        expect((await stores().users.findByEmail(`${local}@Example.COM`))?.email).toBe(`${local}@Example.COM`);
        expect(await stores().users.findByEmail(`nobody-${hex(4)}@example.com`)).toBeNull();
      });
    });

    // ---------- API keys ----------

    describe('keys', () => {
      it('insert returns an active, never-used key that findActiveByHash and findActiveForUser find', async () => {
        const user = await newUser();
        const other = await newUser();
        const input = keyFor(user.id, {
          name: 'ci',
          limits: { perMinute: 10, perHour: null, perDay: 1000 },
          ipWhitelist: ['10.0.0.0/8', '2001:db8::1'],
        });
        const key = await stores().keys.insert(input);
        expect(key).toMatchObject({ ...input, lastUsedAt: null, revokedAt: null });
        expect(key.createdAt).toBeInstanceOf(Date);
        expect(await stores().keys.findActiveByHash(input.secretHash)).toEqual(key);
        expect(await stores().keys.findActiveForUser(key.id, user.id)).toEqual(key);
        expect(await stores().keys.findActiveForUser(key.id, other.id)).toBeNull();
        expect(await stores().keys.findActiveByHash(hex(32))).toBeNull();
      });

      it('revoke makes the key unfindable, uncounted and unlisted; only once, and only by its owner', async () => {
        const user = await newUser();
        const other = await newUser();
        const a = await stores().keys.insert(keyFor(user.id));
        const b = await stores().keys.insert(keyFor(user.id));
        expect(await stores().keys.countActiveForUser(user.id)).toBe(2);

        expect(await stores().keys.revoke(a.id, other.id)).toBe(false);
        expect(await stores().keys.findActiveByHash(a.secretHash)).not.toBeNull();

        expect(await stores().keys.revoke(a.id, user.id)).toBe(true);
        expect(await stores().keys.findActiveByHash(a.secretHash)).toBeNull();
        expect(await stores().keys.findActiveForUser(a.id, user.id)).toBeNull();
        expect((await stores().keys.listActiveForUser(user.id)).map((k) => k.id)).toEqual([b.id]);
        expect(await stores().keys.countActiveForUser(user.id)).toBe(1);
        expect(await stores().keys.revoke(a.id, user.id)).toBe(false);
        expect(await stores().keys.revoke(randomUUID(), user.id)).toBe(false);
        expect(await stores().keys.update(a.id, user.id, { name: 'revived?' })).toBeNull();
      });

      it('listActiveForUser returns only that user’s keys, newest first; countActiveForUser counts them', async () => {
        const user = await newUser();
        const other = await newUser();
        await stores().keys.insert(keyFor(other.id));
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          if (i > 0) await nextMillisecond();
          ids.push((await stores().keys.insert(keyFor(user.id, { name: `key ${i}` }))).id);
        }
        const listed = await stores().keys.listActiveForUser(user.id);
        expect(listed.map((k) => k.id)).toEqual([...ids].reverse());
        expect(listed.every((k) => k.userId === user.id)).toBe(true);
        expect(await stores().keys.countActiveForUser(user.id)).toBe(3);
        expect(await stores().keys.countActiveForUser(randomUUID())).toBe(0);
        expect(await stores().keys.listActiveForUser(randomUUID())).toEqual([]);
      });

      it('update changes the name, merges limits (null removes one) and replaces the IP whitelist', async () => {
        const user = await newUser();
        const key = await stores().keys.insert(
          keyFor(user.id, { name: 'before', limits: { perMinute: 5, perHour: 50, perDay: 500 }, ipWhitelist: ['192.0.2.1'] }),
        );

        const renamed = await stores().keys.update(key.id, user.id, { name: 'after' });
        expect(renamed).toMatchObject({ name: 'after', limits: { perMinute: 5, perHour: 50, perDay: 500 }, ipWhitelist: ['192.0.2.1'] });

        const limited = await stores().keys.update(key.id, user.id, { limits: { perMinute: null, perDay: 900 } });
        expect(limited?.limits).toEqual({ perMinute: null, perHour: 50, perDay: 900 });
        expect(limited?.name).toBe('after');

        const listed = await stores().keys.update(key.id, user.id, { ipWhitelist: ['198.51.100.0/24', '::1'] });
        expect(listed?.ipWhitelist).toEqual(['198.51.100.0/24', '::1']);
        const cleared = await stores().keys.update(key.id, user.id, { ipWhitelist: [] });
        expect(cleared?.ipWhitelist).toEqual([]);

        const unchanged = await stores().keys.update(key.id, user.id, {});
        expect(unchanged).toMatchObject({ id: key.id, name: 'after', limits: { perMinute: null, perHour: 50, perDay: 900 } });

        const stored = await stores().keys.findActiveForUser(key.id, user.id);
        expect(stored).toMatchObject({ name: 'after', limits: { perMinute: null, perHour: 50, perDay: 900 }, ipWhitelist: [] });
        expect(stored?.secretHash).toBe(key.secretHash);
        expect(stored?.createdAt.getTime()).toBe(key.createdAt.getTime());
      });

      it('update of another user’s key, or of an unknown id, is null and changes nothing', async () => {
        const owner = await newUser();
        const intruder = await newUser();
        const key = await stores().keys.insert(keyFor(owner.id, { name: 'mine' }));
        expect(await stores().keys.update(key.id, intruder.id, { name: 'stolen', ipWhitelist: ['203.0.113.9'] })).toBeNull();
        expect(await stores().keys.update(randomUUID(), owner.id, { name: 'ghost' })).toBeNull();
        expect(await stores().keys.findActiveForUser(key.id, owner.id)).toMatchObject({ name: 'mine', ipWhitelist: [] });
      });

      it('touchLastUsed records the time of use', async () => {
        const user = await newUser();
        const key = await stores().keys.insert(keyFor(user.id));
        const at = new Date(Date.now() + 5_000);
        await stores().keys.touchLastUsed(key.id, at);
        expect((await stores().keys.findActiveByHash(key.secretHash))?.lastUsedAt?.getTime()).toBe(at.getTime());
        const later = new Date(at.getTime() + 61_000);
        await stores().keys.touchLastUsed(key.id, later);
        expect((await stores().keys.findActiveForUser(key.id, user.id))?.lastUsedAt?.getTime()).toBe(later.getTime());
      });
    });

    // ---------- tasks ----------

    describe('tasks', () => {
      it('insert stores a waiting task with empty results, and findById returns it', async () => {
        const user = await newUser();
        const task = await newTask(user.id, 1_234_567);
        expect(task).toMatchObject({
          userId: user.id,
          apiKeyId: null,
          modelId: 'conformance.image',
          modality: 'image',
          status: 'waiting',
          request: REQUEST,
          callbackUrl: null,
          quotedMicro: 1_234_567,
          chargedMicro: null,
          outputs: [],
          warnings: [],
          errorMessage: null,
          upstreamHandle: null,
          attempts: 0,
          startedAt: null,
          finishedAt: null,
        });
        expect(task.createdAt).toBeInstanceOf(Date);
        expect(await stores().tasks.findById(task.id)).toEqual(task);
        expect(await stores().tasks.findById(randomUUID())).toBeNull();
      });

      it('keeps the API key id, the callback url and a full request', async () => {
        const user = await newUser();
        const key = await stores().keys.insert(keyFor(user.id));
        const request: RunRequest = {
          prompt: 'a paper boat — ünïcödé',
          callback_url: 'https://example.com/hook?x=1',
          video_params: { duration: 10, resolution: '1080p', enable_translation: true, multi_shots: false, image_urls: ['https://example.com/a.png'] },
        };
        const task = await stores().tasks.insert({
          ...taskFor(user.id, 80_000_000),
          apiKeyId: key.id,
          modelId: 'conformance.video',
          modality: 'video',
          request,
          callbackUrl: 'https://example.com/hook?x=1',
        });
        const found = await stores().tasks.findById(task.id);
        expect(found).toMatchObject({ apiKeyId: key.id, modality: 'video', callbackUrl: 'https://example.com/hook?x=1', quotedMicro: 80_000_000 });
        expect(found?.request).toEqual(request);
      });

      it('findForUser finds the owner’s task and returns null for another user', async () => {
        const owner = await newUser();
        const other = await newUser();
        const task = await newTask(owner.id);
        expect((await stores().tasks.findForUser(task.id, owner.id))?.id).toBe(task.id);
        expect(await stores().tasks.findForUser(task.id, other.id)).toBeNull();
        expect(await stores().tasks.findForUser(randomUUID(), owner.id)).toBeNull();
      });

      it('markGenerating moves waiting -> generating, counts every attempt and keeps the first startedAt', async () => {
        const user = await newUser();
        const task = await newTask(user.id);
        const first = new Date(Date.now() - 10_000);
        const g1 = await stores().tasks.markGenerating(task.id, first);
        expect(g1).toMatchObject({ id: task.id, status: 'generating', attempts: 1 });
        expect(g1?.startedAt?.getTime()).toBe(first.getTime());

        const g2 = await stores().tasks.markGenerating(task.id, new Date());
        expect(g2).toMatchObject({ status: 'generating', attempts: 2 });
        expect(g2?.startedAt?.getTime()).toBe(first.getTime());

        const stored = await stores().tasks.findById(task.id);
        expect(stored).toMatchObject({ status: 'generating', attempts: 2, finishedAt: null });
        expect(stored?.startedAt?.getTime()).toBe(first.getTime());
        expect(await stores().tasks.markGenerating(randomUUID(), new Date())).toBeNull();
      });

      it('markSuccess only ends a generating task, and only once', async () => {
        const user = await newUser();
        const task = await newTask(user.id, 2_000_000);
        const at = new Date();
        const result = {
          outputs: [{ key: `${task.id}/output-0.png`, mediaType: 'image/png', bytes: 1234 }],
          warnings: [{ param: 'image_params.seed', message: 'ignored' }],
          chargedMicro: 2_000_000,
          at,
        };
        expect(await stores().tasks.markSuccess(task.id, result)).toBe(false);
        expect((await stores().tasks.findById(task.id))?.status).toBe('waiting');

        await stores().tasks.markGenerating(task.id, new Date());
        expect(await stores().tasks.markSuccess(task.id, result)).toBe(true);
        const done = await stores().tasks.findById(task.id);
        expect(done).toMatchObject({
          status: 'success',
          outputs: result.outputs,
          warnings: result.warnings,
          chargedMicro: 2_000_000,
          errorMessage: null,
          attempts: 1,
        });
        expect(done?.finishedAt?.getTime()).toBe(at.getTime());

        expect(await stores().tasks.markSuccess(task.id, { ...result, chargedMicro: 1 })).toBe(false);
        expect(await stores().tasks.markFail(task.id, 'too late', new Date())).toBe(false);
        expect(await stores().tasks.markGenerating(task.id, new Date())).toBeNull();
        expect(await stores().tasks.markSuccess(randomUUID(), result)).toBe(false);
        expect(await stores().tasks.findById(task.id)).toMatchObject({ status: 'success', chargedMicro: 2_000_000, errorMessage: null, attempts: 1 });
      });

      it('markFail ends a waiting or a generating task, and is false once the task has ended', async () => {
        const user = await newUser();
        const waiting = await newTask(user.id);
        const generating = await newTask(user.id);
        await stores().tasks.markGenerating(generating.id, new Date());
        const at = new Date();

        expect(await stores().tasks.markFail(waiting.id, 'rejected before start', at)).toBe(true);
        expect(await stores().tasks.markFail(generating.id, 'upstream said no', at)).toBe(true);
        const w = await stores().tasks.findById(waiting.id);
        const g = await stores().tasks.findById(generating.id);
        expect(w).toMatchObject({ status: 'fail', errorMessage: 'rejected before start', outputs: [], chargedMicro: null });
        expect(g).toMatchObject({ status: 'fail', errorMessage: 'upstream said no', attempts: 1 });
        expect(w?.finishedAt?.getTime()).toBe(at.getTime());

        expect(await stores().tasks.markFail(waiting.id, 'again', new Date())).toBe(false);
        expect(await stores().tasks.markGenerating(waiting.id, new Date())).toBeNull();
        expect(await stores().tasks.markSuccess(generating.id, { outputs: [], warnings: [], chargedMicro: 0, at: new Date() })).toBe(false);
        expect(await stores().tasks.markFail(randomUUID(), 'ghost', new Date())).toBe(false);
        expect((await stores().tasks.findById(waiting.id))?.errorMessage).toBe('rejected before start');
        expect((await stores().tasks.findById(generating.id))?.status).toBe('fail');
      });

      it('saveUpstreamHandle round-trips JSON values', async () => {
        const user = await newUser();
        const task = await newTask(user.id);
        const handle: JsonValue = {
          job: 'up-123',
          attempt: 2,
          ratio: 0.5,
          ok: true,
          nothing: null,
          nested: { list: [1, 'two', false, null, { deep: 'ü ✓' }] },
        };
        await stores().tasks.saveUpstreamHandle(task.id, handle);
        expect((await stores().tasks.findById(task.id))?.upstreamHandle).toEqual(handle);
        await stores().tasks.saveUpstreamHandle(task.id, 'opaque-string-handle');
        expect((await stores().tasks.findById(task.id))?.upstreamHandle).toBe('opaque-string-handle');
        await stores().tasks.saveUpstreamHandle(task.id, [42, 'x']);
        expect((await stores().tasks.findForUser(task.id, user.id))?.upstreamHandle).toEqual([42, 'x']);
      });

      it('listUnfinished lists waiting and generating tasks, never ended ones, up to the limit', async () => {
        const user = await newUser();
        const waiting = await newTask(user.id);
        const generating = await newTask(user.id);
        const succeeded = await newTask(user.id);
        const failed = await newTask(user.id);
        await stores().tasks.markGenerating(generating.id, new Date());
        await stores().tasks.markGenerating(succeeded.id, new Date());
        await stores().tasks.markSuccess(succeeded.id, { outputs: [], warnings: [], chargedMicro: 0, at: new Date() });
        await stores().tasks.markFail(failed.id, 'no', new Date());

        const all = await stores().tasks.listUnfinished(100_000);
        const ids = new Set(all.map((t) => t.id));
        expect(ids.has(waiting.id)).toBe(true);
        expect(ids.has(generating.id)).toBe(true);
        expect(ids.has(succeeded.id)).toBe(false);
        expect(ids.has(failed.id)).toBe(false);
        expect(all.every((t) => t.status === 'waiting' || t.status === 'generating')).toBe(true);
        expect(all.find((t) => t.id === generating.id)?.status).toBe('generating');
        expect((await stores().tasks.listUnfinished(1)).length).toBe(1);
      });
    });

    // ---------- ledger ----------

    describe('ledger', () => {
      it('openAccount starts a user at zero balance and nothing held', async () => {
        const user = await stores().users.insert({ id: randomUUID(), email: `open-${hex(4)}@example.com` });
        await stores().ledger.openAccount(user.id);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 0, heldMicro: 0 });
        await expectLedgerInvariant(user.id);
      });

      it('record: a completed transaction raises the balance at once, a pending one does not', async () => {
        const user = await newUser();
        const done = await grant(user.id, 5_000_000, 'welcome');
        expect(done).toMatchObject({
          userId: user.id,
          creditsMicro: 5_000_000,
          amountMicroUsd: 0,
          paymentMethod: 'grant',
          status: 'completed',
          taskId: null,
          description: 'welcome',
        });
        expect(done.createdAt).toBeInstanceOf(Date);
        const pending = await stores().ledger.record({
          userId: user.id,
          creditsMicro: 10_000_000,
          amountMicroUsd: 100_000,
          paymentMethod: 'manual',
          status: 'pending',
          description: 'top-up',
          externalRef: `ref-${hex(6)}`,
        });
        expect(pending).toMatchObject({ status: 'pending', creditsMicro: 10_000_000, amountMicroUsd: 100_000, paymentMethod: 'manual' });
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 5_000_000, heldMicro: 0 });
        expect(await stores().ledger.findTransaction(pending.id)).toEqual(pending);
        expect(await stores().ledger.findTransaction(randomUUID())).toBeNull();
        await expectLedgerInvariant(user.id);
      });

      it('complete: pending -> completed exactly once, raising the balance; the second call is null', async () => {
        const user = await newUser();
        await grant(user.id, 1_000_000);
        const pending = await stores().ledger.record({
          userId: user.id,
          creditsMicro: 10_000_000,
          amountMicroUsd: 100_000,
          paymentMethod: 'manual',
          status: 'pending',
          description: 'top-up',
        });
        const completed = await stores().ledger.complete(pending.id);
        expect(completed).toMatchObject({ id: pending.id, status: 'completed', creditsMicro: 10_000_000 });
        expect((await stores().ledger.getBalance(user.id)).balanceMicro).toBe(11_000_000);
        expect((await stores().ledger.findTransaction(pending.id))?.status).toBe('completed');
        await expectLedgerInvariant(user.id);

        expect(await stores().ledger.complete(pending.id)).toBeNull();
        expect((await stores().ledger.getBalance(user.id)).balanceMicro).toBe(11_000_000);
        expect(await stores().ledger.complete(randomUUID())).toBeNull();
        await expectLedgerInvariant(user.id);
      });

      it('hold refuses with insufficient_credits when balance − held < amount, and holds the exact remainder', async () => {
        const user = await newUser();
        await expectInsufficient(holdTask(user.id, 1));
        await grant(user.id, 1_000_000);

        const a = await holdTask(user.id, 600_000);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 600_000 });

        const refusedId = randomUUID();
        await expectInsufficient(
          h().uow.run(async (tx) => {
            await tx.ledger.hold(user.id, refusedId, 400_001);
            await tx.tasks.insert(taskFor(user.id, 400_001, refusedId));
          }),
        );
        expect(await stores().tasks.findById(refusedId)).toBeNull();
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 600_000 });

        const b = await holdTask(user.id, 400_000);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 1_000_000 });
        await expectInsufficient(holdTask(user.id, 1));
        expect(a).not.toBe(b);
        expect(await allTransactions(user.id)).toHaveLength(1);
        await expectLedgerInvariant(user.id);
      });

      it('a pending purchase does not make room for a hold', async () => {
        const user = await newUser();
        await stores().ledger.record({
          userId: user.id,
          creditsMicro: 50_000_000,
          amountMicroUsd: 500_000,
          paymentMethod: 'manual',
          status: 'pending',
          description: 'unpaid',
        });
        await expectInsufficient(holdTask(user.id, 1_000_000));
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 0, heldMicro: 0 });
        await expectLedgerInvariant(user.id);
      });

      it('settle charges the charge (below the hold) as ONE completed usage transaction and releases the rest', async () => {
        const user = await newUser();
        await grant(user.id, 10_000_000);
        const taskId = await holdTask(user.id, 3_000_050);
        const other = await holdTask(user.id, 1_000_000);

        const tx = await stores().ledger.settle(taskId, 2_000_050, 'conformance.image generation');
        expect(tx).toMatchObject({
          userId: user.id,
          creditsMicro: -2_000_050,
          amountMicroUsd: 20_001, // 2_000_050 / 100 = 20_000.5, rounded half up
          paymentMethod: 'usage',
          status: 'completed',
          taskId,
          description: 'conformance.image generation',
        });
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 2_000_050, heldMicro: 1_000_000 });
        const usage = await usageOf(user.id, taskId);
        expect(usage).toHaveLength(1);
        expect(usage[0]?.id).toBe(tx?.id);
        expect(await stores().ledger.findTransaction(tx?.id ?? '')).toMatchObject({ creditsMicro: -2_000_050, taskId });
        await expectLedgerInvariant(user.id);

        await stores().ledger.release(other);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 2_000_050, heldMicro: 0 });
        await expectLedgerInvariant(user.id);
      });

      it('settle never charges more than the hold', async () => {
        const user = await newUser();
        await grant(user.id, 10_000_000);
        const taskId = await holdTask(user.id, 1_234_567);
        const tx = await stores().ledger.settle(taskId, 9_000_000, 'over quote');
        expect(tx).toMatchObject({ creditsMicro: -1_234_567, amountMicroUsd: 12_346, paymentMethod: 'usage', status: 'completed' });
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 1_234_567, heldMicro: 0 });
        await expectLedgerInvariant(user.id);
      });

      it('settle of a zero charge records a zero usage transaction and releases the whole hold', async () => {
        const user = await newUser();
        await grant(user.id, 5_000_000);
        const taskId = await holdTask(user.id, 5_000_000);
        const tx = await stores().ledger.settle(taskId, 0, 'free');
        expect(tx?.paymentMethod).toBe('usage');
        expect(Math.abs(tx?.creditsMicro ?? -1)).toBe(0);
        expect(tx?.amountMicroUsd).toBe(0);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 5_000_000, heldMicro: 0 });
        await expectLedgerInvariant(user.id);
      });

      it('settle is idempotent: a second settle (or a later release) is null and changes nothing', async () => {
        const user = await newUser();
        await grant(user.id, 4_000_000);
        const taskId = await holdTask(user.id, 3_000_000);
        expect(await stores().ledger.settle(taskId, 2_500_000, 'first')).not.toBeNull();
        const after = await stores().ledger.getBalance(user.id);
        expect(after).toEqual({ balanceMicro: 1_500_000, heldMicro: 0 });

        expect(await stores().ledger.settle(taskId, 2_500_000, 'second')).toBeNull();
        await stores().ledger.release(taskId);
        expect(await stores().ledger.getBalance(user.id)).toEqual(after);
        expect(await usageOf(user.id, taskId)).toHaveLength(1);
        expect(await stores().ledger.settle(randomUUID(), 1, 'no hold')).toBeNull();
        await expectLedgerInvariant(user.id);
      });

      it('release frees the hold without charging; it is idempotent and a later settle is null', async () => {
        const user = await newUser();
        await grant(user.id, 2_000_000);
        const taskId = await holdTask(user.id, 1_500_000);
        await expectInsufficient(holdTask(user.id, 600_000));

        await stores().ledger.release(taskId);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 2_000_000, heldMicro: 0 });
        await stores().ledger.release(taskId);
        await stores().ledger.release(randomUUID());
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 2_000_000, heldMicro: 0 });
        expect(await stores().ledger.settle(taskId, 1_500_000, 'too late')).toBeNull();
        expect(await usageOf(user.id, taskId)).toEqual([]);
        expect(await allTransactions(user.id)).toHaveLength(1);

        await holdTask(user.id, 2_000_000);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 2_000_000, heldMicro: 2_000_000 });
        await expectLedgerInvariant(user.id);
      });

      it('listTransactions lists the user’s transactions newest first, with the total and paging', async () => {
        const user = await newUser();
        const other = await newUser();
        await grant(other.id, 1_000_000, 'not yours');
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          if (i > 0) await nextMillisecond();
          ids.push((await grant(user.id, (i + 1) * 1_000_000, `t${i}`)).id);
        }
        await nextMillisecond();
        const taskId = await holdTask(user.id, 1_000_000);
        await nextMillisecond();
        const usage = await stores().ledger.settle(taskId, 1_000_000, 'usage');
        const newestFirst = [usage?.id, ...[...ids].reverse()];

        const p1 = await stores().ledger.listTransactions(user.id, 1, 2);
        const p2 = await stores().ledger.listTransactions(user.id, 2, 2);
        const p3 = await stores().ledger.listTransactions(user.id, 3, 2);
        const p4 = await stores().ledger.listTransactions(user.id, 4, 2);
        expect([p1.total, p2.total, p3.total, p4.total]).toEqual([6, 6, 6, 6]);
        expect(p1.items.map((t) => t.id)).toEqual(newestFirst.slice(0, 2));
        expect(p2.items.map((t) => t.id)).toEqual(newestFirst.slice(2, 4));
        expect(p3.items.map((t) => t.id)).toEqual(newestFirst.slice(4, 6));
        expect(p4.items).toEqual([]);
        const whole = await stores().ledger.listTransactions(user.id, 1, 100);
        expect(whole.items.map((t) => t.id)).toEqual(newestFirst);
        expect(whole.items.every((t) => t.userId === user.id)).toBe(true);
        expect(await stores().ledger.listTransactions(randomUUID(), 1, 20)).toEqual({ items: [], total: 0 });
        await expectLedgerInvariant(user.id);
        await expectLedgerInvariant(other.id);
      });

      it('keeps the invariant over a mixed scenario of grants, purchases, holds, settles and releases', async () => {
        const user = await newUser();
        await grant(user.id, 7_000_000);
        await expectLedgerInvariant(user.id);
        const purchase = await stores().ledger.record({
          userId: user.id,
          creditsMicro: 3_000_000,
          amountMicroUsd: 30_000,
          paymentMethod: 'stripe',
          status: 'pending',
          description: 'checkout',
          externalRef: `cs_${hex(8)}`,
        });
        await expectLedgerInvariant(user.id);
        const tasks = [await holdTask(user.id, 2_000_000), await holdTask(user.id, 2_000_000), await holdTask(user.id, 3_000_000)];
        await expectInsufficient(holdTask(user.id, 1));
        await stores().ledger.complete(purchase.id);
        await expectLedgerInvariant(user.id);
        await holdTask(user.id, 3_000_000);
        const [t0, t1, t2] = tasks as [string, string, string];
        await stores().ledger.settle(t0, 1_999_999, 'partial');
        await expectLedgerInvariant(user.id);
        await stores().ledger.release(t1);
        await expectLedgerInvariant(user.id);
        await stores().ledger.settle(t2, 3_000_000, 'full');
        await expectLedgerInvariant(user.id);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 10_000_000 - 1_999_999 - 3_000_000, heldMicro: 3_000_000 });
      });
    });

    // ---------- alerts ----------

    describe('alerts', () => {
      it('insert, listForUser and countForUser see only the user’s alerts', async () => {
        const user = await newUser();
        const other = await newUser();
        const a = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 5_000_000, armed: true });
        expect(a).toMatchObject({ userId: user.id, thresholdMicro: 5_000_000, armed: true });
        expect(a.createdAt).toBeInstanceOf(Date);
        const b = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 1_000_000, armed: false });
        await stores().alerts.insert({ id: randomUUID(), userId: other.id, thresholdMicro: 9_000_000, armed: true });
        const listed = await stores().alerts.listForUser(user.id);
        expect(listed.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
        expect(listed.find((x) => x.id === b.id)).toMatchObject({ thresholdMicro: 1_000_000, armed: false });
        expect(await stores().alerts.countForUser(user.id)).toBe(2);
        expect(await stores().alerts.countForUser(other.id)).toBe(1);
        expect(await stores().alerts.countForUser(randomUUID())).toBe(0);
      });

      it('delete removes only the owner’s alert: another user’s delete is false', async () => {
        const user = await newUser();
        const other = await newUser();
        const a = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 2_000_000, armed: true });
        expect(await stores().alerts.delete(a.id, other.id)).toBe(false);
        expect(await stores().alerts.countForUser(user.id)).toBe(1);
        expect(await stores().alerts.delete(a.id, user.id)).toBe(true);
        expect(await stores().alerts.listForUser(user.id)).toEqual([]);
        expect(await stores().alerts.delete(a.id, user.id)).toBe(false);
        expect(await stores().alerts.delete(randomUUID(), user.id)).toBe(false);
      });

      it('setArmed disarms and re-arms an alert', async () => {
        const user = await newUser();
        const a = await stores().alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 3_000_000, armed: true });
        await stores().alerts.setArmed(a.id, false);
        expect((await stores().alerts.listForUser(user.id))[0]).toMatchObject({ id: a.id, armed: false, thresholdMicro: 3_000_000 });
        await stores().alerts.setArmed(a.id, true);
        expect((await stores().alerts.listForUser(user.id))[0]).toMatchObject({ id: a.id, armed: true });
      });
    });

    // ---------- unit of work ----------

    describe('unit of work', () => {
      it('run commits its writes and returns the function’s value', async () => {
        const id = randomUUID();
        const taskId = randomUUID();
        const out = await h().uow.run(async (tx) => {
          await tx.users.insert({ id, email: `uow-${hex(4)}@example.com` });
          await tx.ledger.openAccount(id);
          await tx.ledger.record({ userId: id, creditsMicro: 3_000_000, amountMicroUsd: 0, paymentMethod: 'grant', status: 'completed', description: null });
          await tx.ledger.hold(id, taskId, 1_000_000);
          await tx.tasks.insert(taskFor(id, 1_000_000, taskId));
          expect(await tx.ledger.getBalance(id)).toEqual({ balanceMicro: 3_000_000, heldMicro: 1_000_000 });
          return 'committed' as const;
        });
        expect(out).toBe('committed');
        expect((await stores().users.findById(id))?.id).toBe(id);
        expect((await stores().tasks.findById(taskId))?.status).toBe('waiting');
        expect(await stores().ledger.getBalance(id)).toEqual({ balanceMicro: 3_000_000, heldMicro: 1_000_000 });
        await expectLedgerInvariant(id);
      });

      it.skipIf(skip.has('rollback'))('a throw inside run leaves no row and rejects with the thrown error', async () => {
        const id = randomUUID();
        const email = `rollback-${hex(4)}@example.com`;
        const failure = new DeliberateFailure();
        await expect(
          h().uow.run(async (tx) => {
            await tx.users.insert({ id, email });
            await tx.ledger.openAccount(id);
            await tx.keys.insert(keyFor(id));
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await stores().users.findById(id)).toBeNull();
        expect(await stores().users.findByEmail(email)).toBeNull();
        expect(await stores().keys.countActiveForUser(id)).toBe(0);
      });

      it.skipIf(skip.has('rollback'))('a throw after hold and task insert leaves neither the hold nor the task', async () => {
        const user = await newUser();
        await grant(user.id, 1_000_000);
        const taskId = randomUUID();
        await expect(
          h().uow.run(async (tx) => {
            await tx.ledger.hold(user.id, taskId, 1_000_000);
            await tx.tasks.insert(taskFor(user.id, 1_000_000, taskId));
            await tx.alerts.insert({ id: randomUUID(), userId: user.id, thresholdMicro: 1, armed: true });
            throw new DeliberateFailure();
          }),
        ).rejects.toBeInstanceOf(DeliberateFailure);
        expect(await stores().tasks.findById(taskId)).toBeNull();
        expect(await stores().alerts.countForUser(user.id)).toBe(0);
        expect(await stores().ledger.getBalance(user.id)).toEqual({ balanceMicro: 1_000_000, heldMicro: 0 });
        expect(await stores().ledger.settle(taskId, 1_000_000, 'ghost')).toBeNull();
        await holdTask(user.id, 1_000_000);
        await expectLedgerInvariant(user.id);
      });
    });
  });
}
