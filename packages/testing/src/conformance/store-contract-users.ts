import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hex, type StoreFixtures } from './store-fixtures.js';

export function describeUsersContract(f: StoreFixtures): void {
  const { stores } = f;
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
}
