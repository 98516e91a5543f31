import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, tempDataDir, type SpawnedServer } from '../../host/test/support/spawn-server.js';
import { launchChromium, screenshot, watchErrors } from './browser.js';

/** The token of the sign-in link mailed to `to` (the newest such mail; quoted-printable turns '=' into '=3D'). */
function tokenFor(smtp: SmtpCapture, to: string): string {
  const mail = smtp.mails.filter((m) => m.to.includes(to)).at(-1);
  const m = /\/dashboard\/sign-in#token(?:=3D|=)([A-Za-z0-9_-]{43})/.exec(mail?.unfolded ?? '');
  if (!m?.[1]) throw new Error(`no sign-in link mailed to ${to}`);
  return m[1];
}

/** Issue 18 item 2: login CSRF through the sign-in link, in Chromium against the standalone host. */
describe('a sign-in link opened by a redirect from another site', () => {
  let smtp: SmtpCapture;
  let db: TestDatabase;
  let server: SpawnedServer;
  let browser: Browser;
  let evil: Server;
  let evilTarget = '';
  const victim = `victim-${Date.now()}@example.com`;
  const attacker = `attacker-${Date.now()}@example.com`;

  const sessionEmail = async (page: Page) => {
    const res = await page.request.get(`${server.url}/dashboard/api/session`);
    return res.status() === 200 ? ((await res.json()) as { user: { email: string } }).user.email : null;
  };
  /** Asks for a link from outside any browser (the attacker's own machine, or the operator's phone). */
  const askElsewhere = async (email: string) => {
    const before = smtp.mails.length;
    const res = await fetch(`${server.url}/dashboard/api/auth/link`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: server.url }, body: JSON.stringify({ email }) });
    expect(res.status).toBe(200);
    await smtp.waitFor(before + 1);
    return tokenFor(smtp, email);
  };

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    db = await createTestDatabase();
    server = await spawnServer({ DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SMTP_URL: smtp.url, DASHBOARD_OPEN_SIGNUP: 'true' });
    browser = await launchChromium();
    // The attacker's site: it sends whoever opens it to the dashboard's sign-in page with the attacker's token.
    evil = createServer((_req, res) => {
      res.writeHead(302, { Location: evilTarget });
      res.end();
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
    await new Promise((r) => evil?.close(r));
    await db?.drop();
  });

  it("the victim's session is unchanged and the page asks before signing in; the link asked for in this browser signs in at once", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = watchErrors(page);
    // The victim signs in the ordinary way: the link, asked for in this browser, signs in without a question.
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(victim);
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await page.getByText('a sign-in link is on its way').waitFor();
    await smtp.waitFor(1);
    await page.goto(`${server.url}/dashboard/sign-in#token=${tokenFor(smtp, victim)}`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await sessionEmail(page)).toBe(victim);

    // The attacker mails themselves a link and lures the victim to a page that redirects to it.
    const token = await askElsewhere(attacker);
    evilTarget = `${server.url}/dashboard/sign-in#token=${token}`;
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    // Whatever the page does with the token, it ends on a heading: the question, or the overview.
    await page.getByRole('heading', { name: /^(Confirm sign-in|Overview)$/ }).waitFor();
    expect(await sessionEmail(page)).toBe(victim);
    await page.getByRole('heading', { name: 'Confirm sign-in' }).waitFor({ timeout: 5_000 });
    await page.getByText(`This link signs you in as ${attacker}`).waitFor();
    await page.getByText(`You are signed in as ${victim}`).waitFor();
    await page.getByText('This link was not asked for in this browser').waitFor();
    expect(await page.getByRole('button', { name: `Sign in as ${attacker}` }).isVisible()).toBe(true);
    expect(page.url()).not.toContain('token');
    await screenshot(page, 'sign-in-csrf-confirm');
    expect(await sessionEmail(page)).toBe(victim);

    // The victim declines: still themselves, and the attacker's link was not used up by the question.
    await page.getByRole('button', { name: `Stay signed in as ${victim}` }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await sessionEmail(page)).toBe(victim);
    const unused = await fetch(`${server.url}/dashboard/api/auth/verify`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: server.url }, body: JSON.stringify({ token }) });
    expect(((await unused.json()) as { signed_in: boolean }).signed_in).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a link opened on another device asks, showing the account, and signs in once confirmed', async () => {
    const token = await askElsewhere(victim);
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${server.url}/dashboard/sign-in#token=${token}`);
    await page.getByRole('heading', { name: 'Confirm sign-in' }).waitFor();
    await page.getByText(`This link signs you in as ${victim}`).waitFor();
    expect(await sessionEmail(page)).toBeNull();
    await screenshot(page, 'sign-in-other-device-confirm');
    await page.getByRole('button', { name: `Sign in as ${victim}` }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await sessionEmail(page)).toBe(victim);
    expect(errors).toEqual([]);
    await context.close();
  });
});
