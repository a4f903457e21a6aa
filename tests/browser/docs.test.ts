import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { OpenApiDocument } from '@parley/shared';
import { startStack, type Stack } from '../support/stack';
import { SPEC_OPERATIONS, slotPath } from '../support/spec-operations';

/**
 * /docs in a real browser: Debian's headless Chromium, driven by playwright-core, opens the
 * page a real gateway serves and must find SPEC's 15 operations rendered, with no console
 * error and no request leaving the gateway (the page works offline). The screenshot is kept
 * in artifacts/ for a person to look at.
 */

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
// The machine has no internet: without these, Chromium's background services try to call
// home and log failures.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = path.join(__dirname, '../../artifacts');
const SLOW = 180_000;

jest.setTimeout(SLOW + 60_000);

/**
 * Every operation the page renders. Swagger UI virtualises long operation lists (only what is
 * near the viewport is in the DOM), so read the page the way a reader does: scroll it from top
 * to bottom, letting each screenful render, and collect what appears.
 */
async function renderedOperations(page: Page): Promise<Array<{ method: string; path: string; summary: string }>> {
  const seen = new Map<string, { method: string; path: string; summary: string }>();
  await page.evaluate(() => window.scrollTo(0, 0));
  for (let step = 0; step < 1000; step++) {
    // A screenful is rendered when the slice of the virtual list in the DOM covers the part of
    // the list that is on screen (the virtualiser pads the rest).
    await page.waitForFunction(
      () => {
        const list = document.querySelector<HTMLElement>('.operations-virtual__list');
        if (!list) return document.querySelectorAll('.opblock').length > 0; // short lists are not virtualised
        const rect = list.getBoundingClientRect();
        const style = getComputedStyle(list);
        const renderedTop = rect.top + parseFloat(style.paddingTop);
        const renderedBottom = rect.bottom - parseFloat(style.paddingBottom);
        const visibleTop = Math.max(rect.top, 0);
        const visibleBottom = Math.min(rect.bottom, window.innerHeight);
        return visibleBottom <= visibleTop || (renderedTop <= visibleTop + 1 && renderedBottom >= visibleBottom - 1);
      },
      undefined,
      { timeout: SLOW },
    );
    const blocks = await page.$$eval('.opblock', (els) =>
      els.map((b) => ({
        method: (b.querySelector('.opblock-summary-method')?.textContent ?? '').trim().toLowerCase(),
        path: b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        summary: (b.querySelector('.opblock-summary-description')?.textContent ?? '').trim(),
      })),
    );
    for (const b of blocks) seen.set(`${b.method} ${b.path}`, b);
    const atEnd = await page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2);
    if (atEnd) break;
    await page.evaluate(() => window.scrollBy(0, Math.floor(window.innerHeight / 2)));
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return [...seen.values()];
}

describe('the API docs page in headless Chromium', () => {
  let stack: Stack;
  let context: BrowserContext;
  let userDataDir: string;
  let page: Page;
  const consoleErrors: string[] = [];
  const offsite: string[] = [];
  const failed: string[] = [];
  let rendered: Array<{ method: string; path: string; summary: string }> = [];
  let errorsPanel = '';
  let doc: OpenApiDocument;

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: run scripts/ensure-infra.sh (apt-get install chromium) or set CHROMIUM_PATH`);
    stack = await startStack({ only: [] });
    doc = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as OpenApiDocument;
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 1600 }, timeout: SLOW });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`page error: ${err.message}`));
    page.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(stack.gatewayUrl) && !url.startsWith('data:')) offsite.push(url);
    });
    page.on('requestfailed', (req) => failed.push(`${req.url()}: ${req.failure()?.errorText}`));

    await page.goto(`${stack.gatewayUrl}/docs`, { waitUntil: 'load', timeout: SLOW });
    await page.waitForSelector('.opblock .opblock-summary-path', { timeout: SLOW });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs.png'), timeout: SLOW });
    rendered = await renderedOperations(page);
    errorsPanel = (await page.locator('.errors-wrapper').allTextContents()).join('\n');
  }, SLOW + 60_000);

  afterAll(async () => {
    await context?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
    await stack?.stop();
  });

  it('when /docs is opened, then the title, version and every documented operation are rendered', async () => {
    await expect(page.locator('.info .title').first().textContent()).resolves.toContain('Parley API');
    await expect(page.locator('.info .title').first().textContent()).resolves.toContain('1.1.0');
    const documented = Object.entries(doc.paths).flatMap(([p, byMethod]) => Object.keys(byMethod).map((m) => `${m} ${p}`)).sort();
    expect(rendered.map((r) => `${r.method} ${r.path}`).sort()).toEqual(documented);
    expect(rendered.length).toBeGreaterThan(0);
  });

  it('when /docs is opened, then SPEC\'s 15 operations are listed under SPEC\'s names', () => {
    const shown = new Map(rendered.map((r) => [`${r.method} ${slotPath(r.path)}`, r.summary]));
    const missing = SPEC_OPERATIONS.filter((s) => shown.get(`${s.method} ${slotPath(s.path)}`) !== s.title).map((s) => `#${s.n} ${s.method.toUpperCase()} ${s.path} "${s.title}" (shown: ${JSON.stringify(shown.get(`${s.method} ${slotPath(s.path)}`))})`);
    expect(missing).toEqual([]);
  });

  it('when an operation is expanded, then its answers are shown, the errors with the Error body', async () => {
    // The filter box narrows the list to one tag, as a reader looking for the profile would.
    await page.locator('.operation-filter-input').fill('Profile');
    const profile = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/v1/profile"]') }).first();
    await profile.waitFor({ timeout: SLOW });
    await profile.locator('.opblock-summary').first().click();
    const codes = profile.locator('.responses-table .response-col_status');
    await codes.first().waitFor({ timeout: SLOW });
    const statuses = (await codes.allTextContents()).map((t) => t.trim());
    expect(statuses).toEqual(expect.arrayContaining(['200', '401']));
    await expect(profile.locator('.responses-table').first().textContent()).resolves.toContain('errors');
  });

  it('when /docs is opened and used, then the console shows no error and nothing is fetched from outside the gateway', () => {
    expect(consoleErrors).toEqual([]);
    // Swagger UI shows reference and parse errors in a panel of its own, not in the console.
    expect(errorsPanel).toBe('');
    expect(offsite).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('when /docs is opened, then the screenshot is kept under artifacts/', () => {
    expect(fs.statSync(path.join(ARTIFACTS, 'docs.png')).size).toBeGreaterThan(10_000);
  });
});
