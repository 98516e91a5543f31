import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, tempDataDir, type SpawnedServer } from '../../host/test/support/spawn-server.js';
import { launchChromium, screenshot, SCREENSHOTS, signIn, watchErrors } from './browser.js';

/** The invitation link of the last mail to `to` (quoted-printable soft breaks already unfolded). */
function invitationLink(smtp: SmtpCapture, to: string): string {
  const mail = smtp.mails.findLast((m) => m.to.includes(to));
  const m = /(http:\/\/\S+?\/dashboard\/#\/invitations\/)([A-Za-z0-9_-]{16,})/.exec(mail?.unfolded ?? '');
  if (!m) throw new Error(`no invitation link in the mail to ${to}: ${mail?.unfolded ?? 'none'}`);
  return `${m[1]}${m[2]}`;
}

describe('organizations in Chromium: create, invite by e-mail, accept in another browser, roles and a member spend limit', () => {
  let smtp: SmtpCapture;
  let db: TestDatabase;
  let server: SpawnedServer;
  let browser: Browser;
  let contextA: BrowserContext;
  let contextB: BrowserContext;
  let a: Page;
  let b: Page;
  /** Page and console errors of both browsers (a blank page, an uncaught exception). */
  let errors: () => string[] = () => [];
  const stamp = Date.now();
  const emailA = `owner-${stamp}@example.com`;
  const emailB = `b-${stamp}@example.com`;
  const orgName = `Acme video team ${stamp}`;
  const shots: string[] = [];
  const shot = async (p: Page, name: string) => {
    shots.push(await screenshot(p, name));
  };
  const nav = (p: Page, name: string) => p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  /** The organization header of every /api/v1 request B's dashboard sends. */
  const headersOfB: { path: string; organization: string | undefined }[] = [];

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    db = await createTestDatabase();
    server = await spawnServer({
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      SMTP_URL: smtp.url,
      DASHBOARD_OPEN_SIGNUP: 'true',
      DASHBOARD_SIGNUP_CREDITS: '100',
      SANDBOX_LATENCY_MS: '50',
    });
    browser = await launchChromium();
    contextA = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contextB = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    a = await contextA.newPage();
    b = await contextB.newPage();
    const ea = watchErrors(a);
    const eb = watchErrors(b);
    errors = () => [...ea, ...eb];
    b.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/v1/')) headersOfB.push({ path: url.pathname, organization: r.headers()['x-gengate-organization'] });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
    await db?.drop();
    if (shots.length) process.stdout.write(`screenshots (${shots.length}) written to ${SCREENSHOTS}\n`);
  });

  it('owner A creates an organization and invites B; B signs in from the link, accepts and is a member; A sets B a spend limit', async () => {
    // A signs up and creates an organization: the switcher then acts on it, A its owner.
    await signIn(a, smtp, server.url, emailA);
    await a.getByRole('heading', { name: 'Overview' }).waitFor();
    const switcherA = a.getByLabel('Organization', { exact: true });
    await expect.poll(() => switcherA.locator('option:checked').textContent()).toBe('Personal');
    await nav(a, 'Organization').click();
    await a.getByRole('heading', { name: 'Organization', level: 1 }).waitFor();
    await a.getByText('Create an organization').click();
    await a.getByLabel('Organization name').fill(orgName);
    await a.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => switcherA.locator('option:checked').textContent()).toBe(`${orgName} (owner)`);
    await a.getByRole('heading', { name: orgName, level: 2 }).waitFor();
    await a.getByTestId('members').getByRole('row', { name: `Member ${emailA}` }).waitFor();

    // A invites B as a member: the invitation is listed, and its e-mail goes out through SMTP.
    const mailsBefore = smtp.mails.length;
    await a.getByLabel('E-mail address').fill(emailB);
    await a.getByLabel('Role', { exact: true }).selectOption('member');
    await a.getByRole('button', { name: 'Send invitation' }).click();
    await a.getByText(`Invitation sent to ${emailB}`).waitFor();
    await a.getByTestId('invitations').getByRole('cell', { name: emailB }).waitFor();
    await smtp.waitFor(mailsBefore + 1);
    const link = invitationLink(smtp, emailB);
    expect(new URL(link).pathname).toBe('/dashboard/');
    await shot(a, 'org-01-owner-invited');

    // The link opened by the wrong person (A): the page says so, and accepting is refused with the API's message.
    const wrong = await contextA.newPage();
    await wrong.goto(link);
    await wrong.getByTestId('invitation').getByText(`to join ${orgName} as member`).waitFor();
    expect(new URL(wrong.url()).pathname).toBe('/dashboard/invitation'); // the token left the address bar
    await wrong.getByText(`only ${emailB} can accept it`).waitFor();
    await wrong.getByRole('button', { name: `Sign out, to sign in as ${emailB}` }).waitFor();
    await wrong.getByRole('button', { name: `Accept and join ${orgName}` }).click();
    await wrong.getByRole('alert').getByText('This invitation was sent to another e-mail address').waitFor();
    await shot(wrong, 'org-02-invitation-wrong-person');
    await wrong.close();

    // B, in another browser, opens the link signed out: sign in first, then back to the invitation.
    await b.goto(link);
    await b.getByRole('heading', { name: 'Sign in' }).waitFor();
    await b.getByText('You opened an invitation to an organization').waitFor();
    await shot(b, 'org-03-invitee-sign-in');
    await signIn(b, smtp, server.url, emailB);
    const card = b.getByTestId('invitation');
    await card.getByText(`${emailA} invites ${emailB} to join ${orgName} as member`).waitFor();
    await card.getByText(/Valid until/).waitFor();
    await shot(b, 'org-04-invitation-preview');
    await card.getByRole('button', { name: `Accept and join ${orgName}` }).click();

    // B is a member: the switcher acts on the organization, with B's role; no Billing for a member.
    await b.getByText(`You joined ${orgName}.`).waitFor();
    const switcherB = b.getByLabel('Organization', { exact: true });
    await expect.poll(() => switcherB.locator('option:checked').textContent()).toBe(`${orgName} (member)`);
    await b.getByTestId('org-role').getByText('member').waitFor();
    expect(await switcherB.locator('option').allTextContents()).toEqual(['Personal', `${orgName} (member)`]);
    await expect(nav(b, 'Billing').count()).resolves.toBe(0);
    await b.getByTestId('members').getByRole('row', { name: `Member ${emailB}` }).getByRole('button', { name: 'Leave' }).waitFor();
    await shot(b, 'org-05-member-joined');
    // Every /api/v1 request since joining names the organization.
    const orgId = await switcherB.inputValue();
    const joinedAt = headersOfB.findIndex((r) => r.path === '/api/v1/invitations/accept');
    const since = headersOfB.slice(joinedAt + 1).filter((r) => r.path !== '/api/v1/organizations');
    expect(since.length).toBeGreaterThan(0);
    expect(since.every((r) => r.organization === orgId)).toBe(true);
    // A used link says so, and cannot be accepted again.
    const again = await contextB.newPage();
    await again.goto(link);
    await again.getByText('This invitation was already used: it works once.').waitFor();
    expect(await again.getByRole('button', { name: `Accept and join ${orgName}` }).isDisabled()).toBe(true);
    await shot(again, 'org-06-invitation-used');
    await again.close();
    // A member's overview shows the organization's balance (0), not its transactions.
    await nav(b, 'Overview').click();
    await expect.poll(() => b.getByTestId('balance').textContent()).toBe('0');
    await expect(b.getByTestId('transactions').count()).resolves.toBe(0);
    // A member's key in the organization: its name and IP whitelist are theirs to change, its limits are not offered.
    await nav(b, 'API keys').click();
    await b.getByText('Create an API key').click();
    await b.getByLabel('Name').fill('b in acme');
    await b.getByRole('button', { name: 'Create key' }).click();
    await b.getByTestId('new-key-secret').waitFor();
    await b.getByRole('button', { name: 'I have stored it' }).click();
    const keyB = b.getByRole('article', { name: 'API key b in acme' });
    await keyB.getByRole('button', { name: 'Edit' }).click();
    await keyB.getByText('Rate limits and spend controls are set by an owner or admin of the organization.').waitFor();
    await expect(keyB.getByLabel('Spend limit (credits)').count()).resolves.toBe(0);
    await keyB.getByLabel('Name').fill('b renamed');
    await keyB.getByRole('button', { name: 'Save' }).click();
    await b.getByRole('article', { name: 'API key b renamed' }).getByRole('button', { name: 'Edit' }).waitFor();
    await shot(b, 'org-05b-member-key');
    // The Billing page reached by its address: says whose it is, asks the API for nothing it would refuse.
    await b.goto(`${server.url}/dashboard/billing`);
    await b.getByText(/Top-ups and balance alerts of .* are for its owners/).waitFor();
    await expect(b.getByRole('alert').count()).resolves.toBe(0);
    await nav(b, 'Overview').click();
    // Switching back to Personal reloads the page's data for it.
    await switcherB.selectOption({ label: 'Personal' });
    await expect.poll(() => b.getByTestId('balance').textContent()).toBe('100');
    await nav(b, 'Billing').waitFor();
    await switcherB.selectOption({ label: `${orgName} (member)` });
    await expect.poll(() => b.getByTestId('balance').textContent()).toBe('0');

    // A sees B in the members table (the invitation is gone from the pending list) and gives B a daily limit.
    await a.reload();
    const rowB = a.getByTestId('members').getByRole('row', { name: `Member ${emailB}` });
    await rowB.waitFor();
    await expect(a.getByTestId('invitations').getByRole('cell', { name: emailB }).count()).resolves.toBe(0);
    expect(await rowB.getByLabel(`Role of ${emailB}`).inputValue()).toBe('member');
    await rowB.getByRole('button', { name: 'Set limit' }).click();
    const form = a.getByRole('form', { name: `Spend limit of ${emailB}` });
    await form.getByLabel('Spend limit (credits)').fill('25');
    await form.getByLabel('Resets every').selectOption('day');
    await form.getByRole('button', { name: 'Save limit' }).click();
    await rowB.getByTestId('member-limit').getByText('25 per UTC day').waitFor();
    await shot(a, 'org-07-owner-member-limit');
    // The owner lists every key of the organization, each with whose it is.
    await nav(a, 'API keys').click();
    await a.getByRole('article', { name: 'API key b renamed' }).getByTestId('key-owner').getByText(`of ${emailB}`).waitFor();
    await nav(a, 'Organization').click();
    await rowB.waitFor();

    // B sees the limit too (members may read the members list).
    await nav(b, 'Organization').click();
    await b.getByTestId('members').getByRole('row', { name: `Member ${emailB}` }).getByTestId('member-limit').getByText('25 per UTC day').waitFor();
    await shot(b, 'org-08-member-sees-limit');

    // A makes B an admin: B's dashboard then offers Billing (alerts, no top-up) and the invitations.
    await rowB.getByLabel(`Role of ${emailB}`).selectOption('admin');
    await expect.poll(() => rowB.getByLabel(`Role of ${emailB}`).inputValue()).toBe('admin');
    await b.reload();
    await expect.poll(() => switcherB.locator('option:checked').textContent()).toBe(`${orgName} (admin)`);
    await b.getByRole('heading', { name: 'Invitations' }).waitFor();
    await nav(b, 'Billing').click();
    await b.getByText(/Only an owner of .* tops up its balance/).waitFor();
    await b.getByText('Only an owner of the organization adds or deletes alerts.').waitFor();
    await expect(b.getByRole('alert').count()).resolves.toBe(0);
    await shot(b, 'org-08b-admin-billing');
    await nav(b, 'Organization').click();

    // A invites someone else and revokes it; renames the organization (the switcher follows).
    await a.getByLabel('E-mail address').fill(`c-${stamp}@example.com`);
    await a.getByRole('button', { name: 'Send invitation' }).click();
    const rowC = a.getByTestId('invitations').getByRole('row').filter({ hasText: `c-${stamp}@example.com` });
    await rowC.getByRole('button', { name: 'Revoke' }).click();
    await a.getByRole('dialog').getByRole('button', { name: 'Revoke invitation' }).click();
    await a.getByTestId('invitations').getByText('No pending invitations.').waitFor();
    await a.getByLabel('Name', { exact: true }).fill(`${orgName} renamed`);
    await a.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => switcherA.locator('option:checked').textContent()).toBe(`${orgName} renamed (owner)`);

    // B leaves (after confirming): back on the personal organization, the only one left in the switcher.
    await b.getByTestId('members').getByRole('row', { name: `Member ${emailB}` }).getByRole('button', { name: 'Leave' }).click();
    await b.getByRole('dialog').getByRole('button', { name: 'Leave' }).click();
    await expect.poll(() => switcherB.locator('option').allTextContents()).toEqual(['Personal']);
    await a.reload();
    await a.getByTestId('members').getByRole('row', { name: `Member ${emailA}` }).waitFor();
    await expect(a.getByTestId('members').getByRole('row', { name: `Member ${emailB}` }).count()).resolves.toBe(0);

    // Phone width: no sideways scrolling of the page (the tables scroll in their own box).
    await a.setViewportSize({ width: 390, height: 844 });
    await a.waitForLoadState('networkidle');
    // The layout settles after the viewport change (the charts resize on a ResizeObserver): wait for it.
    await expect.poll(() => a.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(a, 'org-09-phone-organization');
    expect(errors()).toEqual([]);
  });
});
