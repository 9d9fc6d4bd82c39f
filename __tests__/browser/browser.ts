/**
 * Chromium for the browser suite: Debian's `chromium` package driven by playwright-core (browsers
 * downloaded by playwright's installer are not used). A page's own console errors and warnings and
 * its uncaught exceptions are collected, so a test can fail on them.
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (or set CHROMIUM_PATH); .ci/run installs it`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface WatchedPage {
  page: Page;
  /** The page's own console.error / console.warn calls and uncaught errors: each one fails a test. */
  problems: string[];
  /**
   * What Chromium logs by itself for a request ("Failed to load resource: … 503", "… blocked by CORS
   * policy: …"): expected in these tests, and what a developer sees in DevTools.
   */
  network: string[];
}

/**
 * Opens `url` in a fresh context (its own cache, so no preflight is remembered from another test)
 * and waits for the app to set `data-ready` on its body. `crypto.randomUUID` and
 * `crypto.getRandomValues` are counted in `window.webCryptoCalls`.
 */
export async function openPage(browser: Browser, url: string): Promise<WatchedPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  const network: string[] = [];
  page.on('console', (message) => {
    const type = message.type();
    if (type !== 'error' && type !== 'warning') return;
    // Messages Chromium logs itself carry no arguments; console.error('…') from a script has one.
    if (message.args().length === 0) network.push(message.text());
    else problems.push(`console.${type}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await page.addInitScript(() => {
    const calls = { randomUUID: 0, getRandomValues: 0 };
    (window as unknown as { webCryptoCalls: typeof calls }).webCryptoCalls = calls;
    const uuid = crypto.randomUUID?.bind(crypto);
    const values = crypto.getRandomValues.bind(crypto);
    if (uuid !== undefined) {
      crypto.randomUUID = () => {
        calls.randomUUID++;
        return uuid();
      };
    }
    crypto.getRandomValues = ((array: ArrayBufferView) => {
      calls.getRandomValues++;
      return values(array as Uint8Array);
    }) as typeof crypto.getRandomValues;
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 10_000 });
  return { page, problems, network };
}

/** One call of a run (see fixtures/runner.js). */
export interface CallSpec {
  method?: string;
  url: string;
  data?: unknown;
  /** `config.retry` of the call. */
  retry?: false | Record<string, unknown>;
  pauseBeforeMs?: number;
  /** Aborts the call's AbortController this long after its first onRetry. */
  abortAfterRetryMs?: number;
  /** Calls plugin.close() this long after the call's first onRetry. */
  closeAfterRetryMs?: number;
}

export interface RunSpec {
  adapter: 'xhr' | 'fetch';
  /** axios `timeout`, per attempt. */
  timeout?: number;
  /** retryPlugin options (plain data); absent: no plugin. */
  plugin?: Record<string, unknown>;
  /** Gives the plugin `rateLimitHeaders: rateLimitHeaders()` (the dialects a browser build leaves out). */
  rateLimitHeaders?: true;
  /** Gives the plugin `rateLimit: rateLimiting(plugin.rateLimit)` (the cross-call limiter a browser build leaves out). */
  rateLimiting?: true;
  /** Records when each attempt went out, by the page's clock (a `beforeAttempt` hook). */
  recordAttempts?: true;
  calls: CallSpec[];
}

export interface RetryStateSeen {
  attempts: number;
  delaysMs: number[];
  idempotencyKey?: string;
  stopReason?: string;
  hedges?: number;
  hedgeWon?: boolean;
  /** With `chaos` on: attempts whose outcome was injected. */
  injected?: number;
}

export interface CallSeen {
  /** `plugin.limiter(url)` as the call ended (`undefined`: no limiter for it). */
  limiter?: { state: string; ratePerSecond: number | null; queued: number; pausedUntil: number; scope?: string };
  ok: boolean;
  status?: number;
  data?: unknown;
  replayed?: boolean;
  retryState?: RetryStateSeen;
  error?: {
    name?: string;
    code?: string;
    message?: string;
    /** The first line of `error.stack`, where the plugin tells its story. */
    stackHead?: string;
    status?: number;
    isAxiosError: boolean;
    isCancel: boolean;
    circuitOpen: boolean;
    hasCause: boolean;
    /** The error's `cause`, when it has one. */
    cause?: { name?: string; code?: string; message?: string };
    /** `error.injected` (chaos): which fault, its phase and kind. */
    injected?: { fault: number; phase: string; kind: string | number };
  };
  elapsedMs: number;
}

export interface RunSeen {
  calls: CallSeen[];
  /** Every onRetry, in order. */
  retries: Array<{
    call: number;
    at: number;
    attempt: number;
    delayMs: number;
    delaySource: string;
    reason: string;
    code?: string;
    status?: number;
    /** onRetry's `injected`: the failure being retried was injected by chaos. */
    injected: boolean;
  }>;
  giveUps: Array<{ call: number; stopReason: string }>;
  breaker: Array<{ call: number; at: number; state: string }>;
  /** With `recordAttempts`: each attempt as it went out (after its turn at the rate limiter), in ms from the run's start. */
  attempts: Array<{ call: number; attempt: number; at: number }>;
}

/** Runs `spec` in the page's app and returns what the page saw. */
export function runInPage(page: Page, spec: RunSpec): Promise<RunSeen> {
  return page.evaluate(
    (s) => (window as unknown as { axr: { run(spec: RunSpec): Promise<RunSeen> } }).axr.run(s),
    spec,
  );
}

/** Web Crypto calls the page has made so far. */
export function webCryptoCalls(page: Page): Promise<{ randomUUID: number; getRandomValues: number }> {
  return page.evaluate(
    () => (window as unknown as { webCryptoCalls: { randomUUID: number; getRandomValues: number } }).webCryptoCalls,
  );
}
