import { blobBytes, type BlobBody, type BlobInfo, type BlobStore, type ByteRange, type OpenedBlob, type StoredBlob } from '../ports/blob-store.js';
import type { TransactionScope, UnitOfWork } from '../ports/stores.js';
import type { UsageReader } from '../ports/usage-reader.js';
import type { OrganizationStore } from '../ports/organization-store.js';
import { MemoryOrganizationStore } from './memory-organization-store.js';
import { MemoryDatabase } from './memory-database.js';
import { MemoryUsageReader } from './memory-usage-reader.js';
import { MemoryKeyBudgetStore } from './memory-key-budget-store.js';
import { MemoryMemberBudgetStore } from './memory-member-budget-store.js';
import { MemoryAlertStore } from './memory-alert-store.js';
import { MemoryBillingLedger } from './memory-billing-ledger.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { MemoryJobQueue } from './memory-job-queue.js';
import { MemoryKeyStore } from './memory-key-store.js';
import { MemoryTaskStore } from './memory-task-store.js';
import { MemoryUserStore } from './memory-user-store.js';

/** Every store of the port over one MemoryDatabase. */
function storesOver(db: MemoryDatabase): TransactionScope {
  return {
    users: new MemoryUserStore(db),
    keys: new MemoryKeyStore(db),
    tasks: new MemoryTaskStore(db),
    ledger: new MemoryBillingLedger(db),
    alerts: new MemoryAlertStore(db),
    jobs: new MemoryJobQueue(db),
    idempotency: new MemoryIdempotencyStore(db),
    keyBudgets: new MemoryKeyBudgetStore(db),
    memberBudgets: new MemoryMemberBudgetStore(db),
  };
}

/**
 * Every store over one MemoryDatabase. Units of work are serialized and copy-on-write, like PostgreSQL's
 * transactions: a unit's writes are invisible until it commits, and a failed one leaves no partial write.
 */
export function createMemoryStores(db = new MemoryDatabase()): {
  db: MemoryDatabase;
  scope: TransactionScope;
  uow: UnitOfWork;
  usage: UsageReader;
  organizations: OrganizationStore;
} {
  const scope = storesOver(db);
  const uow: UnitOfWork = { run: (fn) => db.transaction((copy) => fn(storesOver(copy))) };
  return { db, scope, uow, usage: new MemoryUsageReader(db), organizations: new MemoryOrganizationStore(db) };
}

export class MemoryBlobStore implements BlobStore {
  readonly blobs = new Map<string, StoredBlob>();
  async put(key: string, body: BlobBody, mediaType: string) {
    const data = await blobBytes(body);
    this.blobs.set(key, { data, mediaType });
    return { bytes: data.byteLength };
  }
  async get(key: string) {
    return this.blobs.get(key) ?? null;
  }
  async stat(key: string): Promise<BlobInfo | null> {
    const blob = this.blobs.get(key);
    return blob ? { size: blob.data.byteLength, mediaType: blob.mediaType } : null;
  }
  async open(key: string, range?: ByteRange): Promise<OpenedBlob | null> {
    const blob = this.blobs.get(key);
    if (!blob) return null;
    const part = range ? blob.data.subarray(range.start, range.end + 1) : blob.data;
    const body = (async function* () {
      yield part;
    })();
    return { body, size: blob.data.byteLength, mediaType: blob.mediaType, range: range ?? null };
  }
  async delete(keys: readonly string[]) {
    for (const key of keys) this.blobs.delete(key);
  }
  async deleteTask(taskId: string) {
    for (const key of [...this.blobs.keys()]) if (key.startsWith(`${taskId}/`)) this.blobs.delete(key);
  }
}
