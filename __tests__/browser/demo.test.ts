/**
 * `npm run demo:browser` in Chromium: the page runs the five scenarios on both adapters and draws
 * the timelines; this checks what it drew and takes the screenshot the browser guide shows
 * (`UPDATE_SCREENSHOT=1 npm run test:browser` writes it to docs/guides/browser-demo.png).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startBrowserDemo } from '../../examples/browser/server';
import type { BrowserDemo } from '../../examples/browser/server';
import { launch } from './browser';

// Small timings keep the run near 4 s; Retry-After: 2 is then clamped to maxDelayMs.
const FAST = '?base=20&max=300&timeout=600&slow=5000&reset=400';
const SCENARIOS = ['flaky', 'rate-limited', 'slow', 'payments', 'outage'];

let demo: BrowserDemo;
let browser: Browser;
let shots: string;

beforeAll(async () => {
  demo = await startBrowserDemo();
  browser = await launch();
  shots = await mkdtemp(join(tmpdir(), 'axr-demo-'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await demo?.close();
  if (shots !== undefined) await rm(shots, { recursive: true, force: true });
});

test('the page runs the five scenarios on xhr and fetch, draws their timelines, and all behave as expected', async () => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // Chromium's own "Failed to load resource: 503" lines have no arguments and are expected.
    if ((message.type() === 'error' || message.type() === 'warning') && message.args().length > 0) {
      problems.push(message.text());
    }
  });
  page.on('pageerror', (error) => problems.push(error.message));

  await page.goto(demo.url + FAST);
  await page.waitForSelector('body[data-state="done"], body[data-state="failed"]', {
    state: 'attached',
    timeout: 30_000,
  });

  const drawn = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('article.scenario')).map((card) => ({
      adapter: card.dataset.adapter,
      scenario: card.dataset.scenario,
      passed: card.dataset.passed,
      outcomes: Array.from(card.querySelectorAll<HTMLElement>('li.attempt')).map((row) => row.dataset.outcome),
      waits: Array.from(card.querySelectorAll<HTMLElement>('li.attempt[data-wait-ms]')).map(
        (row) => row.dataset.waitMs,
      ),
      breaker: card.querySelector<HTMLElement>('.breaker')?.dataset.seen,
      facts: card.querySelector('.facts')?.textContent,
      notes: Array.from(card.querySelectorAll('li.note')).map((row) => row.textContent),
    })),
  );
  const card = (adapter: string, scenario: string): (typeof drawn)[number] =>
    drawn.find((c) => c.adapter === adapter && c.scenario === scenario)!;

  expect(drawn.map((c) => `${c.adapter} ${c.scenario}`)).toEqual(
    ['xhr', 'fetch'].flatMap((adapter) => SCENARIOS.map((s) => `${adapter} ${s}`)),
  );
  // The page's own verdicts; a failing one names what it observed.
  expect(drawn.filter((c) => c.passed !== 'true').map((c) => `${c.adapter} ${c.scenario}: ${c.facts}`)).toEqual([]);
  expect(await page.evaluate(() => document.body.dataset.passed)).toBe('true');
  for (const adapter of ['xhr', 'fetch']) {
    expect(card(adapter, 'flaky').outcomes).toEqual(['503', '503', '200']);
    expect(card(adapter, 'flaky').waits).toHaveLength(2);
    expect(card(adapter, 'rate-limited')).toMatchObject({ outcomes: ['429', '200'], waits: ['300'] });
    expect(card(adapter, 'slow').outcomes).toEqual([adapter === 'xhr' ? 'ECONNABORTED' : 'ETIMEDOUT', '200']);
    expect(card(adapter, 'payments').outcomes).toEqual(['ERR_NETWORK', '200']);
    const outage = card(adapter, 'outage');
    expect(outage.outcomes).toContain('not-sent');
    expect(outage.outcomes.at(-1)).toBe('200');
    expect(outage.breaker).toBe('open half-open closed');
    expect(outage.notes.map((n) => n!.replace(/^\+[\d.]+s\s*/, ''))).toEqual([
      '⚡ breaker open',
      '⚡ breaker half-open',
      '⚡ breaker closed',
    ]);
  }

  const file =
    process.env.UPDATE_SCREENSHOT === '1'
      ? join(__dirname, '../../docs/guides/browser-demo.png')
      : join(shots, 'browser-demo.png');
  const png = await page.screenshot({ path: file, fullPage: true });
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(png.readUInt32BE(16)).toBe(1440);
  expect(problems).toEqual([]);
  await context.close();
}, 45_000);
