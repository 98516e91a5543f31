import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, type SpawnedServer } from '../../host/test/support/spawn-server.js';
import { launchChromium, linkIn, screenshot, SCREENSHOTS, watchErrors } from './browser.js';

describe('the dashboard in Chromium, against the standalone host', () => {
  let smtp: SmtpCapture;
  let db: TestDatabase;
  let server: SpawnedServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let receiver: Server;
  let hookUrl: string;
  const hooks: string[] = [];
  const email = `browser-${Date.now()}@example.com`;
  const shots: string[] = [];
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  const shot = async (name: string, p: Page = page) => {
    shots.push(await screenshot(p, name));
  };
  const dataDir = tempDataDir();

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        hooks.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    db = await createTestDatabase();
    server = await spawnServer({
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      DASHBOARD_OPEN_SIGNUP: 'true',
      DASHBOARD_SIGNUP_CREDITS: '100',
      SANDBOX_LATENCY_MS: '400',
      CALLBACK_ALLOW_PRIVATE: 'true',
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    errors = watchErrors(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
    await new Promise((r) => receiver?.close(r));
    await db?.drop();
    if (shots.length) process.stdout.write(`screenshots (${shots.length}) written to ${SCREENSHOTS}\n`);
  });

  it('prints the dashboard URL at start-up and serves the app with its security headers', async () => {
    await expect.poll(() => server.output()).toContain(`gengate dashboard: ${server.url}/dashboard/`);
    const res = await fetch(`${server.url}/dashboard/tasks`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(await res.text()).toContain('<div id="root">');
  });

  it('sign-up by e-mail link, a key read once, an image and a video in the playground, the charge, an alert, revocation, sign-out', async () => {
    // Sign up: the link comes through the real SMTP capture.
    await page.goto(`${server.url}/dashboard/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('New here? The same link creates your account.').waitFor();
    await shot('01-sign-in');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await page.getByText('a sign-in link is on its way').waitFor();
    await smtp.waitFor(1);
    expect(smtp.mails[0]?.to).toEqual([email]);
    const link = linkIn(smtp, 0);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe('100');
    expect(page.url()).not.toContain('token');
    await shot('02-overview-new-user');

    // A used link is refused, with the API's message.
    const other = await context.newPage();
    await other.goto(link);
    await other.getByText('This sign-in link is unknown, has expired or was already used').waitFor();
    await shot('03-sign-in-link-reused', other);
    await other.close();

    // Create a key: its secret is shown once, with a copy button.
    await nav('API keys').click();
    await page.getByText('Create an API key').click();
    await page.getByLabel('Name').fill('browser test');
    await page.getByLabel('Requests per minute').fill('60');
    await page.getByLabel(/IP whitelist/).fill('127.0.0.1\n::1');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent()) ?? '';
    expect(secret).toMatch(/^gg_live_[A-Za-z0-9_-]{43}$/);
    await expect(page.getByRole('button', { name: 'Copy the key' }).isVisible()).resolves.toBe(true);
    await page.getByRole('article', { name: 'API key browser test' }).waitFor();
    await shot('04-keys-secret-shown-once');
    const viaKey = await fetch(`${server.url}/api/v1/billing/balance`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(viaKey.status).toBe(200);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.reload();
    await page.getByTestId('api-key').first().waitFor();
    expect(await page.content()).not.toContain(secret);
    await expect(page.getByTestId('api-key').getByText('Limits per minute/hour/day: 60 / — / —').count()).resolves.toBe(1);
    // Rename it.
    await page.getByRole('article', { name: 'API key browser test' }).getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('article', { name: 'API key browser test' }).getByLabel('Name').fill('browser key');
    // ... and give it a daily budget, a soft threshold, a concurrency cap and an allow-list (issue 22).
    const editing = page.getByRole('article', { name: 'API key browser test' });
    await editing.getByLabel('Spend limit (credits)').fill('50');
    await editing.getByLabel('Resets every').selectOption('day');
    await editing.getByLabel(/E-mail at/).fill('80');
    await editing.getByLabel('Most tasks at once').fill('3');
    await editing.getByLabel(/Allowed modalities/).fill('image video');
    await page.getByRole('button', { name: 'Save' }).click();
    const budgeted = page.getByRole('article', { name: 'API key browser key' });
    await budgeted.getByText(/Budget: spent 0 of 50 credits per day · remaining 50 · resets .* · e-mail at 80%/).waitFor();
    await budgeted.getByText('Tasks running or waiting: 0 of at most 3 · allowed: modalities image, video').waitFor();
    await shot('04b-keys-budget');

    // Playground: a sandbox image of a requested size.
    await nav('Playground').click();
    await page.getByLabel('Model', { exact: true }).selectOption('sandbox.pixel-image');
    await page.getByTestId('capabilities').getByText('16–2048 px per side').waitFor();
    await page.getByTestId('prices').waitFor();
    await page.getByLabel('Prompt (required)').fill('a red fox in the snow');
    await page.getByLabel('Width (pixels)').fill('320');
    await page.getByLabel('Height (pixels)').fill('200');
    await page.getByTestId('quote-credits').filter({ hasText: '2 credits' }).waitFor();
    await page.getByLabel('Width (pixels)').fill('5000');
    await page.getByTestId('quote').getByText(/width 5000 is outside this model's range 16\.\.2048/).waitFor();
    await page.getByLabel('Width (pixels)').fill('320');
    await page.getByTestId('quote-credits').filter({ hasText: '2 credits' }).waitFor();
    await page.getByLabel('Callback URL').fill(hookUrl);
    await shot('05-playground-image-form');
    await page.getByRole('button', { name: 'Run Sandbox Pixel Image' }).click();
    await page.locator('[data-testid="task-watch"][data-status="success"]').waitFor({ timeout: 60_000 });
    const image = page.getByTestId('result-image');
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([320, 200]);
    await shot('06-playground-image-result');

    // Playground: a sandbox video (an animated GIF preview), its states watched.
    await page.getByLabel('Model', { exact: true }).selectOption('sandbox.motion-video');
    await page.getByTestId('capabilities').getByText('Durations (s)').waitFor();
    await page.getByLabel('Prompt (required)').fill('a paper boat on a river');
    await page.getByLabel('Duration (seconds)').selectOption('5');
    await page.getByLabel('Resolution').selectOption('720p');
    await page.getByTestId('quote-credits').filter({ hasText: '25 credits' }).waitFor();
    await page.getByRole('button', { name: 'Run Sandbox Motion Video' }).click();
    await page.locator('[data-testid="task-watch"][data-status="generating"], [data-testid="task-watch"][data-status="success"]').first().waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="task-watch"][data-status="success"]').waitFor({ timeout: 90_000 });
    const preview = page.getByTestId('result-video-preview');
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const [w, h] = await preview.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
    expect(Math.abs((w ?? 0) / (h ?? 1) - 16 / 9)).toBeLessThan(0.02);
    expect(await preview.evaluate((img: HTMLImageElement) => new URL(img.currentSrc).pathname)).toMatch(/\.gif$/);
    await shot('07-playground-video-result');

    // Tasks: both results inline, with their cost.
    await nav('Tasks').click();
    await expect.poll(() => page.locator('[data-testid="task"][data-status="success"]').count()).toBe(2);
    await expect.poll(() => page.getByTestId('result-image').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(320);
    await expect.poll(() => page.getByTestId('result-video-preview').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.getByText('25 credits charged').waitFor();
    await page.getByText('2 credits charged').waitFor();
    // The image task had a callback URL: its delivery attempts are listed.
    await expect.poll(() => hooks.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(hooks[0] ?? '{}')).toMatchObject({ status: 'success' });
    await page.getByRole('button', { name: 'Show callback attempts' }).click();
    await page.getByTestId('callback-attempts').getByText('delivered (HTTP 200)').waitFor();
    await shot('08-tasks');
    await page.screenshot({ path: `${SCREENSHOTS}/readme-tasks.png` });
    await page.getByLabel('fail', { exact: true }).check();
    await page.getByText('No tasks match these filters').waitFor();
    await page.getByLabel('fail', { exact: true }).uncheck();

    // The charges in the transactions.
    await nav('Overview').click();
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe('73');
    const rows = page.getByTestId('transactions').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    await expect(rows.filter({ hasText: 'sandbox.motion-video' }).filter({ hasText: '-25' }).count()).resolves.toBe(1);
    await expect(rows.filter({ hasText: 'sandbox.pixel-image' }).filter({ hasText: '-2' }).count()).resolves.toBe(1);
    await shot('09-overview-transactions');

    // A balance alert, and a manual top-up request.
    await nav('Billing').click();
    await page.getByLabel('Threshold in credits').fill('50');
    await page.getByRole('button', { name: 'Add alert' }).click();
    await page.getByTestId('alerts').getByText('Below 50 credits').waitFor();
    await page.getByLabel(/Amount in USD/).fill('5');
    await page.getByRole('button', { name: 'Request top-up' }).click();
    await page.getByText(/is pending/).waitFor();
    await shot('10-billing');

    // Revoke the key (with confirmation): a request with it is refused.
    await nav('API keys').click();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('dialog').getByText('Revoke the key “browser key”?').waitFor();
    await shot('11-keys-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('No active keys.').waitFor();
    const refused = await fetch(`${server.url}/api/v1/billing/balance`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(401);

    // Operator pages, after the CLI gives the role.
    const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: dataDir };
    expect(JSON.parse(await runCli(['users', 'role', '--email', email, '--operator'], env))).toMatchObject({ email, role: 'operator' });
    await page.reload();
    await nav('Operator').click();
    await page.getByTestId('operator-users').getByText(email).waitFor();
    await page.getByTestId('operator-providers').getByText('sandbox', { exact: true }).waitFor();
    await page.getByTestId('operator-queues').getByText('gengate-generate', { exact: true }).waitFor();
    await page.getByTestId('operator-users').getByRole('button', { name: email }).click();
    await page.getByTestId('user-detail').getByLabel('Credits').fill('10');
    await page.getByTestId('user-detail').getByRole('button', { name: 'Grant' }).click();
    await page.getByText('Granted 10 credits.').waitFor();
    await shot('12-operator');

    // Phone-sized screens: no sideways scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [['/dashboard/', '13-phone-overview'], ['/dashboard/playground?model=sandbox.pixel-image', '14-phone-playground'], ['/dashboard/tasks', '15-phone-tasks']] as const) {
      await page.goto(`${server.url}${path}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      // The layout settles after the page's data arrives (the header's organization switcher, the charts): wait for it.
      await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await shot(name);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // Sign out: the session is gone.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await page.request.get(`${server.url}/dashboard/api/session`)).status()).toBe(401);
    await page.goto(`${server.url}/dashboard/keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a page on another origin cannot use the session (cookie sent, no CSRF token): nothing changes', async () => {
    context = await browser.newContext();
    page = await context.newPage();
    const before = smtp.mails.length;
    // Keyboard only: the skip link first, then the field and the button.
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await page.getByText('a sign-in link is on its way').waitFor();
    await smtp.waitFor(before + 1);
    await page.goto(linkIn(smtp, before));
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const session = (await (await page.request.get(`${server.url}/dashboard/api/session`)).json()) as { csrf_token: string };
    const keysNow = async () =>
      ((await (await page.request.get(`${server.url}/api/v1/api-keys`, { headers: { 'X-CSRF-Token': session.csrf_token } })).json()) as { data: unknown[] }).data.length;
    const before2 = await keysNow();

    // Another origin on the same host (same site, so even a SameSite=Strict cookie goes along).
    const evil: Server = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><html><body>
        <form id="f" method="POST" action="${server.url}/api/v1/api-keys" enctype="text/plain"><input name='{"name":"forged","x":"' value='"}'></form>
        <script>
          fetch('${server.url}/api/v1/api-keys', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: '{"name":"forged"}' })
            .then(() => fetch('${server.url}/dashboard/api/session', { method: 'DELETE', mode: 'no-cors', credentials: 'include' }))
            .finally(() => { document.title = 'sent'; document.getElementById('f').submit(); });
        </script></body></html>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()));
    try {
      const attacker = await context.newPage();
      await attacker.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      await attacker.waitForURL(/\/api\/v1\/api-keys$/);
      expect(await attacker.content()).toContain('authentication_failed');
      await attacker.close();
    } finally {
      await new Promise((r) => evil.close(r));
    }
    expect(await keysNow()).toBe(before2);
    expect((await page.request.get(`${server.url}/dashboard/api/session`)).status()).toBe(200);
  });
});
