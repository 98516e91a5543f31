import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SmtpCapture } from '@gengate/testing/host';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where screenshots go: test-results/screenshots/, or GENGATE_SCREENSHOTS (a directory outside the repository). */
export const SCREENSHOTS = process.env['GENGATE_SCREENSHOTS'] ?? resolve(import.meta.dirname, '../../../test-results/screenshots');

/** Debian's Chromium (Playwright's own browser download does not work on these machines). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Fails the test on a page error or a console error (a blank page, a CSP violation, an uncaught exception). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // A refused request (the 401 of a signed-out session check) is logged by Chromium as "Failed to load resource".
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/** The sign-in link of the n-th captured mail (quoted-printable turns '=' into '=3D'). */
export function linkIn(smtp: SmtpCapture, index: number): string {
  const mail = smtp.mails[index];
  const m = /(http:\/\/\S+?\/dashboard\/sign-in)#token(?:=3D|=)([A-Za-z0-9_-]{43})/.exec(mail?.unfolded ?? '');
  if (!m) throw new Error(`no sign-in link in mail ${index}: ${mail?.unfolded ?? 'none'}`);
  return `${m[1]}#token=${m[2]}`;
}

/** Signs in `email` through the sign-in form and the link of the mail it sends (the real SMTP capture). */
export async function signIn(page: Page, smtp: SmtpCapture, origin: string, email: string): Promise<void> {
  const before = smtp.mails.length;
  if (!new URL(page.url(), origin).pathname.endsWith('/sign-in')) await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.getByText('a sign-in link is on its way').waitFor();
  await smtp.waitFor(before + 1);
  const index = smtp.mails.findLastIndex((m) => m.to.includes(email));
  await page.goto(linkIn(smtp, index));
}
