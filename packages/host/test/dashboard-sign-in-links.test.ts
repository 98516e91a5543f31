import { startSmtpCapture, type SmtpCapture } from '@gengate/testing/host';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMailer } from '../src/mail/create-mailer.js';
import { PgUserStore } from '../src/postgres/pg-user-store.js';
import request from './support/contract-request.js';
import { cookiesOf, linkToken, openDashboardApp, ORIGIN, type DashboardApp } from './support/dashboard-app.js';
import { waitFor } from './support/spawn-server.js';

const silent = pino({ level: 'silent' });
const link = (h: DashboardApp, email: string, cookie?: string) => {
  const r = request(h.app).post('/dashboard/api/auth/link').set('Origin', ORIGIN);
  return (cookie ? r.set('Cookie', cookie) : r).send({ email });
};
const verify = (h: DashboardApp, body: object, cookie?: string) => {
  const r = request(h.app).post('/dashboard/api/auth/verify').set('Origin', ORIGIN);
  return (cookie ? r.set('Cookie', cookie) : r).send(body);
};
const count = async (h: DashboardApp, sql: string, args: unknown[] = []) => (await h.pool.query<{ n: number }>(sql, args)).rows[0]?.n ?? -1;

describe('sign-in link requests tell nobody which addresses have accounts (issue 18 item 4)', () => {
  let smtp: SmtpCapture;
  let h: DashboardApp;
  beforeAll(async () => {
    smtp = await startSmtpCapture();
    h = await openDashboardApp({ mailer: createMailer({ smtpUrl: smtp.url, from: 'gengate@example.com', logger: silent }) });
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  it('answers known and unknown addresses alike without looking the address up: the account is read only by the mail job, after the answer (real SMTP)', async () => {
    const n = 20;
    for (let i = 0; i < n; i++) await h.gengate.admin.createUser({ email: `known-${i}@example.com` });
    // With the mail worker paused, whatever a request reads or writes is the request's own doing.
    await h.pauseMail();
    const lookups = vi.spyOn(PgUserStore.prototype, 'findByEmail');
    const answers = new Set<string>();
    try {
      for (let i = 0; i < n; i++) {
        for (const email of [`known-${i}@example.com`, `unknown-${i}@example.com`]) {
          const res = await link(h, email);
          answers.add(`${res.status} ${JSON.stringify(res.body)}`);
        }
      }
      expect([...answers]).toEqual(['200 {"sent":true}']);
      expect(lookups).not.toHaveBeenCalled();
      // One queued request per answer, each carrying the same fields whatever the address.
      const jobs = await h.pool.query<{ data: Record<string, unknown> }>(`select data from pgboss.job where name = 'gengate-sign-in-mail' and state = 'created'`);
      expect(jobs.rows).toHaveLength(2 * n);
      expect(new Set(jobs.rows.map((r) => Object.keys(r.data).sort().join(',')))).toEqual(new Set(['browserHash,email']));
      expect(await count(h, `select count(*)::int as n from gengate.sign_in_tokens`)).toBe(0);
    } finally {
      await h.resumeMail();
    }
    // The job then looks each address up: the known ones get their links through the real SMTP server,
    // the unknown ones nothing.
    await smtp.waitFor(n);
    await h.settle();
    expect(lookups).toHaveBeenCalledTimes(2 * n);
    lookups.mockRestore();
    const to = smtp.mails.flatMap((m) => m.to);
    expect(to.filter((a) => a.startsWith('known-')).length).toBe(n);
    expect(to.filter((a) => a.startsWith('unknown-'))).toEqual([]);
  });
});

describe('sign-in link requests while mail is failing (issue 18 item 4)', () => {
  let h: DashboardApp;
  beforeAll(async () => {
    // Nothing listens on port 1: every send fails with ECONNREFUSED.
    h = await openDashboardApp({ mailer: createMailer({ smtpUrl: 'smtp://127.0.0.1:1', from: 'gengate@example.com', logger: silent }) });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a known and an unknown address get the same status and body', async () => {
    await h.gengate.admin.createUser({ email: 'known-mail-down@example.com' });
    const known = await link(h, 'known-mail-down@example.com');
    const unknown = await link(h, 'unknown-mail-down@example.com');
    expect({ status: known.status, body: known.body }).toEqual({ status: 200, body: { sent: true } });
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: { sent: true } });
  });

  it('a failed send leaves no usable link and gives its place in the hourly count back; pg-boss retries it', async () => {
    await h.gengate.admin.createUser({ email: 'retry-me@example.com' });
    await link(h, 'retry-me@example.com').expect(200);
    await waitFor(
      async () => {
        const { rows } = await h.pool.query<{ state: string }>(`select state from pgboss.job where name = 'gengate-sign-in-mail' and data->>'email' = $1`, ['retry-me@example.com']);
        return rows[0]?.state === 'retry' ? true : null;
      },
      { timeoutMs: 15_000, what: 'the failed send to be scheduled for a retry' },
    );
    expect(await count(h, 'select count(*)::int as n from gengate.sign_in_tokens where email = $1', ['retry-me@example.com'])).toBe(0);
    expect(await count(h, 'select coalesce(cardinality(sent_at), 0)::int as n from gengate.sign_in_link_sends where email = $1', ['retry-me@example.com'])).toBe(0);
  });
});

describe('at most five links an hour to one address (issue 18 item 5)', () => {
  let h: DashboardApp;
  beforeAll(async () => {
    h = await openDashboardApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  const burst = async (email: string, n: number) => {
    const answers = await Promise.all(Array.from({ length: n }, () => link(h, email)));
    expect(new Set(answers.map((r) => `${r.status} ${JSON.stringify(r.body)}`))).toEqual(new Set(['200 {"sent":true}']));
    await h.settle();
  };
  const mailsTo = (email: string) => h.mails.filter((m) => m.to === email).length;

  it('60 concurrent requests for one address send 5 mails', async () => {
    await h.gengate.admin.createUser({ email: 'flood@example.com' });
    await burst('flood@example.com', 60);
    process.stdout.write(`60 concurrent link requests: ${mailsTo('flood@example.com')} mails\n`);
    expect(mailsTo('flood@example.com')).toBe(5);
  });

  it('the purge of expired links does not reset the count (sequential, then 60 concurrent, across a purge); an hour later one more is sent', async () => {
    await h.gengate.admin.createUser({ email: 'purged@example.com' });
    for (let i = 0; i < 5; i++) {
      await link(h, 'purged@example.com').expect(200);
      await h.settle();
    }
    expect(mailsTo('purged@example.com')).toBe(5);
    // 20 minutes on: every link sent so far has expired, and the purge deletes them.
    h.advance(20 * 60_000);
    const purged = await h.services.auth.purgeExpired();
    expect(purged.tokens).toBeGreaterThanOrEqual(5);
    for (let i = 0; i < 3; i++) {
      await link(h, 'purged@example.com').expect(200);
      await h.settle();
    }
    await burst('purged@example.com', 60);
    process.stdout.write(`after the purge, 3 + 60 more requests: ${mailsTo('purged@example.com')} mails in total\n`);
    expect(mailsTo('purged@example.com')).toBe(5);
    // An hour after the first five, the address may get a link again.
    h.advance(41 * 60_000);
    await link(h, 'purged@example.com').expect(200);
    await h.settle();
    expect(mailsTo('purged@example.com')).toBe(6);
  });
});

describe('a sign-in link never silently replaces a session (issue 18 item 2)', () => {
  let h: DashboardApp;
  beforeAll(async () => {
    h = await openDashboardApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('asking for a link sets a pre-sign-in cookie bound to the link; opened in that browser, the link signs in at once', async () => {
    await h.gengate.admin.createUser({ email: 'same-browser@example.com' });
    const before = h.mails.length;
    const asked = await link(h, 'same-browser@example.com').expect(200);
    const setCookie = ((asked.headers['set-cookie'] as unknown as string[] | undefined) ?? []).join('\n');
    expect(setCookie).toMatch(/^gengate_sign_in=[A-Za-z0-9_-]{43}; Path=\/dashboard\/api\/auth; Expires=.+; HttpOnly; SameSite=Strict$/m);
    const token = linkToken(await h.nextMail(before));
    const res = await verify(h, { token }, cookiesOf(asked)).expect(200);
    expect(res.body).toMatchObject({ signed_in: true, user: { email: 'same-browser@example.com' }, created: false });
    expect(cookiesOf(res)).toMatch(/gengate_session=[A-Za-z0-9_-]{43}/);
  });

  it('opened in another browser, the link asks first (showing the address) and signs in only once confirmed', async () => {
    await h.gengate.admin.createUser({ email: 'other-device@example.com' });
    const before = h.mails.length;
    await link(h, 'other-device@example.com').expect(200);
    const token = linkToken(await h.nextMail(before));
    const asks = await verify(h, { token }).expect(200);
    expect(asks.body).toEqual({ signed_in: false, confirm: { email: 'other-device@example.com', requested_in_this_browser: false, signed_in_as: null } });
    expect(asks.headers['set-cookie']).toBeUndefined();
    // Not consumed by asking: the confirmation uses it.
    const done = await verify(h, { token, confirm: true }).expect(200);
    expect(done.body).toMatchObject({ signed_in: true, user: { email: 'other-device@example.com' } });
    await verify(h, { token, confirm: true }).expect(400);
  });

  it("an attacker's link opened in a signed-in victim's browser changes nothing until the victim confirms", async () => {
    await h.gengate.admin.createUser({ email: 'victim@example.com' });
    await h.gengate.admin.createUser({ email: 'attacker@example.com' });
    const victim = await h.signIn('victim@example.com');
    // The attacker asks for a link in their own browser and sends the victim to /dashboard/sign-in#token=...
    const before = h.mails.length;
    const attackerBrowser = cookiesOf(await link(h, 'attacker@example.com').expect(200));
    const token = linkToken(await h.nextMail(before));
    // The victim's browser carries the victim's session cookie (and no pre-sign-in cookie of the attacker's).
    const res = await verify(h, { token }, victim.cookie).expect(200);
    expect(res.body).toEqual({ signed_in: false, confirm: { email: 'attacker@example.com', requested_in_this_browser: false, signed_in_as: 'victim@example.com' } });
    expect(res.headers['set-cookie']).toBeUndefined();
    const session = await request(h.app).get('/dashboard/api/session').set('Cookie', victim.cookie).expect(200);
    expect(session.body.user.email).toBe('victim@example.com');
    // Even a link bound to the same browser asks before replacing another account's session.
    const mine = cookiesOf(await link(h, 'attacker@example.com', `${victim.cookie}; ${attackerBrowser}`).expect(200));
    const own = linkToken(await h.nextMail(before + 1));
    const bound = await verify(h, { token: own }, `${victim.cookie}; ${mine}`).expect(200);
    expect(bound.body).toEqual({ signed_in: false, confirm: { email: 'attacker@example.com', requested_in_this_browser: true, signed_in_as: 'victim@example.com' } });
    expect(await count(h, 'select count(*)::int as n from gengate.sign_in_tokens where email = $1 and used_at is null', ['attacker@example.com'])).toBe(2);
  });
});
