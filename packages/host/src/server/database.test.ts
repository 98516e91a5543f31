import { describe, expect, it } from 'vitest';
import { describeDatabase } from './database.js';

describe('describeDatabase', () => {
  it('names host, port and database, never the user or password', () => {
    expect(describeDatabase('postgres://u:secret@db.example:6543/gg', false)).toEqual({ host: 'db.example', port: 6543, name: 'gg', embedded: false });
  });

  it('names the socket directory of a Unix-domain socket URL (`?host=/dir`, as the embedded server is reached)', () => {
    expect(describeDatabase(`postgres://postgres:pw@localhost:41234/gengate?host=${encodeURIComponent('/tmp/gg/postgres')}`, true)).toEqual({
      host: '/tmp/gg/postgres',
      port: 41234,
      name: 'gengate',
      embedded: true,
    });
  });
});
