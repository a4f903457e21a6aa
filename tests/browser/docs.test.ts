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

describe('the API docs page in headless Chromium', () => {
  let stack: Stack;
  let context: BrowserContext;
  let userDataDir: string;
  let page: Page;
  const consoleErrors: string[] = [];
  const offsite: string[] = [];
  const failed: string[] = [];
  let rendered: Array<{ method: string; path: string }> = [];
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
    // Rendering finishes when every operation of the document has its block.
    const documented = Object.values(doc.paths).reduce((n, byMethod) => n + Object.keys(byMethod).length, 0);
    await page.waitForSelector('.opblock .opblock-summary-path', { timeout: SLOW });
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, documented, { timeout: SLOW });
    rendered = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => ({
        method: (b.querySelector('.opblock-summary-method')?.textContent ?? '').trim().toLowerCase(),
        path: b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
      })),
    );
    errorsPanel = (await page.locator('.errors-wrapper').allTextContents()).join('\n');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs.png'), timeout: SLOW });
  }, SLOW + 60_000);

  afterAll(async () => {
    await context?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
    await stack?.stop();
  });

  it('when /docs is opened, then the title, version and every documented operation are rendered', async () => {
    await expect(page.locator('.info .title').first().textContent()).resolves.toContain('Parley API');
    await expect(page.locator('.info .title').first().textContent()).resolves.toContain('1.1.0');
    const documented = Object.values(doc.paths).reduce((n, byMethod) => n + Object.keys(byMethod).length, 0);
    expect(rendered.length).toBe(documented);
    expect(rendered.length).toBeGreaterThan(0);
  });

  it('when /docs is opened, then SPEC\'s 15 operations are listed', () => {
    const shown = new Set(rendered.map((r) => `${r.method} ${slotPath(r.path)}`));
    const missing = SPEC_OPERATIONS.filter((s) => !shown.has(`${s.method} ${slotPath(s.path)}`)).map((s) => `#${s.n} ${s.method.toUpperCase()} ${s.path}`);
    expect(missing).toEqual([]);
  });

  it('when an operation is expanded, then its answers are shown, the errors with the Error body', async () => {
    const profile = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/v1/profile"]') }).first();
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
