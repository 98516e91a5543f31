import { readFileSync } from 'node:fs';
import { createTestDatabase, startSmtpCapture, type SmtpCapture, type TestDatabase } from '@gengate/testing/host';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from '../../host/test/support/spawn-server.js';
import { launchChromium, linkIn, screenshot, SCREENSHOTS, watchErrors } from './browser.js';

/** The UTC midnight `daysBack` days before today, as the usage page sends it. */
const midnightUtc = (daysBack: number): string => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysBack)).toISOString();
};

describe('the usage charts and key budgets in Chromium, with usage made by real sandbox tasks', () => {
  let smtp: SmtpCapture;
  let db: TestDatabase;
  let server: SpawnedServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let secret = '';
  const dataDir = tempDataDir();
  const email = `charts-${Date.now()}@example.com`;
  const shots: string[] = [];
  const usageRequests: URL[] = [];
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  const shot = async (name: string) => {
    shots.push(await screenshot(page, name));
  };

  /** Submits a run with the key and waits until the task has ended (the API's own status, polled). */
  const run = async (modelId: string, body: Record<string, unknown>): Promise<string> => {
    const res = await fetch(`${server.url}/api/v1/run/${modelId}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const submitted = (await res.json()) as { task_id?: string; message?: string };
    if (!submitted.task_id) throw new Error(`run ${modelId} refused: HTTP ${res.status} ${submitted.message ?? ''}`);
    return waitFor(
      async () => {
        const t = (await (await fetch(`${server.url}/api/v1/run/tasks/${submitted.task_id}`, { headers: { Authorization: `Bearer ${secret}` } })).json()) as { status: string };
        return t.status === 'success' || t.status === 'fail' ? t.status : null;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `task ${submitted.task_id} of ${modelId} to end` },
    );
  };

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    db = await createTestDatabase();
    server = await spawnServer({
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      DASHBOARD_OPEN_SIGNUP: 'true',
      DASHBOARD_SIGNUP_CREDITS: '100',
      SANDBOX_LATENCY_MS: '50',
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    errors = watchErrors(page);
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/api/v1/usage') usageRequests.push(url);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
    await db?.drop();
    if (shots.length) process.stdout.write(`screenshots (${shots.length}) written to ${SCREENSHOTS}\n`);
  });

  it('empty states first; then spend, tasks, latency drawn from real tasks; the range picker, the CSV; a key budget set in the form and drawn', async () => {
    // Sign in (a new account with 100 credits).
    await page.goto(`${server.url}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await smtp.waitFor(1);
    await page.goto(linkIn(smtp, 0));
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    // No usage yet: every chart says so instead of drawing empty axes.
    await nav('Usage').click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    for (const id of ['chart-spend', 'chart-tasks', 'chart-latency', 'chart-key-budgets']) await page.locator(`[data-testid="${id}"][data-state="empty"]`).waitFor();
    await page.getByTestId('chart-spend-empty').getByText('No usage in this range.').waitFor();
    await page.getByText('No key has a spend limit.').waitFor();
    await shot('charts-01-usage-empty');

    // A key, made in the dashboard; then real tasks through the API with it: 3 images (2 credits each),
    // one chat, one failure (the sandbox's always-fail model charges nothing).
    await nav('API keys').click();
    await page.getByText('Create an API key').click();
    await page.getByLabel('Name').fill('charts key');
    await page.getByRole('button', { name: 'Create key' }).click();
    secret = (await page.getByTestId('new-key-secret').textContent()) ?? '';
    expect(secret).toMatch(/^gg_live_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    // A spend limit set in the keys page's budget form (before the runs: a key's spend counts in the
    // budget period its submission fell in).
    const keyCard = page.getByRole('article', { name: 'API key charts key' });
    await keyCard.getByRole('button', { name: 'Edit' }).click();
    await keyCard.getByLabel(/Spend limit/).fill('10');
    await keyCard.getByLabel(/Budget period|Resets/).selectOption('day');
    await keyCard.getByRole('button', { name: 'Save' }).click();
    await keyCard.getByRole('button', { name: 'Edit' }).waitFor();
    const ended: string[] = [];
    for (const size of [64, 96, 128]) ended.push(await run('sandbox.pixel-image', { prompt: `a square of ${size}`, image_params: { width: size, height: size } }));
    ended.push(await run('sandbox.echo-chat', { prompt: 'hello charts' }));
    ended.push(await run('sandbox.always-fail', { prompt: 'this one fails' }));
    expect(ended).toEqual(['success', 'success', 'success', 'success', 'fail']);

    // The charts, drawn from GET /api/v1/usage (last 30 days by default).
    await nav('Usage').click();
    const spend = page.locator('[data-testid="chart-spend"][data-state="ready"]');
    await spend.waitFor();
    await expect.poll(() => spend.locator('.recharts-bar-rectangle').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(2); // image and chat in today's stack
    await spend.locator('.recharts-legend-wrapper').getByText('sandbox.pixel-image').waitFor();
    await spend.locator('.recharts-legend-wrapper').getByText('sandbox.echo-chat').waitFor();
    const spendUnit = (await spend.locator('header small').textContent()) ?? '';
    const total = Number(/· ([\d.,]+) credits in this range/.exec(spendUnit)?.[1]?.replace(/,/g, ''));
    expect(total).toBeGreaterThan(6); // 3 × 2 credits of images and a few micro-credits of chat
    expect(total).toBeLessThan(7);
    const tasks = page.locator('[data-testid="chart-tasks"][data-state="ready"]');
    await tasks.getByText('5 in this range, 1 failed').waitFor();
    await tasks.getByText('Show the figures as a table').click();
    await tasks.locator('tbody tr').filter({ hasText: '20 %' }).waitFor(); // 1 of 5 failed today
    await shot('charts-02-usage-30-days');
    const latency = page.locator('[data-testid="chart-latency"][data-state="ready"]');
    await expect.poll(() => latency.locator('.recharts-bar-rectangle').count(), { timeout: 15_000 }).toBe(4); // p50 and p95 of two models
    await latency.getByText('Show the figures as a table').click();
    await expect(latency.locator('tbody tr').filter({ hasText: 'sandbox.pixel-image' }).locator('td').nth(1).textContent()).resolves.toBe('3');
    const thirty = usageRequests.filter((u) => u.searchParams.get('group_by') === 'day,model').at(-1);
    expect(thirty?.searchParams.get('from')).toBe(midnightUtc(29));

    // The range picker changes the request: 7 days starts six days before today's midnight.
    const before = usageRequests.length;
    // (click, not check: the choice goes through the URL, so the radio is checked once the router has moved)
    await page.getByLabel('Last 7 days').click();
    await expect.poll(() => page.getByLabel('Last 7 days').isChecked(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => usageRequests.slice(before).some((u) => u.searchParams.get('from') === midnightUtc(6)), { timeout: 15_000 }).toBe(true);
    expect(new URL(page.url()).searchParams.get('days')).toBe('7');
    await spend.waitFor();
    await page.getByLabel('Last 90 days').click();
    await expect.poll(() => page.getByLabel('Last 90 days').isChecked(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => usageRequests.some((u) => u.searchParams.get('from') === midnightUtc(89)), { timeout: 15_000 }).toBe(true);
    await spend.waitFor();
    await shot('charts-03-usage-90-days');

    // The CSV download: the endpoint's file, its header row first, one line per day and model.
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync(await file.path(), 'utf8').trim().split(/\r?\n/);
    expect(csv[0]).toBe('day,model,credits,tasks,failures,input_tokens,output_tokens,images,video_seconds,latency_p50_ms,latency_p95_ms');
    expect(csv.slice(1).filter((l) => l.includes(',sandbox.pixel-image,'))).toHaveLength(1);
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    await page.getByText(/Downloaded .+\.csv/).waitFor();

    // The key's budget bar: what the runs spent against the limit set in the form, with the reset time.
    const bar = page.locator('[data-testid="key-budget"][data-key="charts key"]');
    await bar.waitFor();
    const words = (await bar.textContent()) ?? '';
    expect(words).toMatch(/charts key: 6\.\d+ of 10 credits per UTC day \(6\d %\)/);
    const tomorrow = new Date(Date.parse(midnightUtc(-1))).toLocaleString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
    expect(words).toContain(`resets ${tomorrow}, 00:00 UTC`);
    await expect.poll(() => page.locator('[data-testid="chart-key-budgets"] .recharts-bar-rectangle').count(), { timeout: 15_000 }).toBe(2); // spent and left
    await shot('charts-04-key-budget');

    // The operator's view: every user's spend per day, by user and by provider.
    expect(JSON.parse(await runCli(['users', 'role', '--email', email, '--operator'], { DATABASE_URL: db.url, GENGATE_DATA_DIR: dataDir }))).toMatchObject({ role: 'operator' });
    await page.reload();
    await nav('Operator').click();
    const byUser = page.locator('[data-testid="chart-operator-users"][data-state="ready"]');
    await byUser.locator('.recharts-legend-wrapper').getByText(email).waitFor();
    const byProvider = page.locator('[data-testid="chart-operator-providers"][data-state="ready"]');
    await byProvider.locator('.recharts-legend-wrapper').getByText('sandbox', { exact: true }).waitFor();
    await byProvider.getByText('Show the figures as a table').click();
    await byProvider.locator('tbody tr').first().waitFor();
    await page.mouse.move(0, 0); // no tooltip left open in the picture
    await page.getByTestId('operator-usage').screenshot({ path: `${SCREENSHOTS}/charts-05-operator-usage.png` });
    shots.push(`${SCREENSHOTS}/charts-05-operator-usage.png`);

    // Phone-sized: the charts shrink with the page, no sideways scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    await nav('Usage').click();
    await spend.waitFor();
    // The layout settles after the viewport change (the charts resize on a ResizeObserver): wait for it.
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot('charts-06-phone-usage');
    expect(errors).toEqual([]);
  });
});
