/**
 * OpenAI's and Anthropic's limits are per minute (requests and tokens per minute), refilled
 * continuously. Each case is a real node:http server on jest's fake clock that keeps such buckets
 * and refuses (429) a request that comes before what it needs is back, answering in the vendor's
 * fields with the values its docs show. What is checked: the wait the plugin chose before its retry
 * (`retryState.delaysMs`) and that the retry is not refused again.
 */
import type { AxiosResponse } from 'axios';
import { settle } from '../support/fake-clock';
import { client, closePlugins, fake } from '../support/helpers';
import { serverPerTest } from '../support/test-server';

const t = serverPerTest();
afterEach(closePlugins);

/** 2026-12-04 06:00:00.000 UTC: a whole second (Anthropic's resets are whole seconds). */
const NOW = Date.UTC(2026, 11, 4, 6, 0, 0);
const MINUTE = 60_000;

/** A bucket of `limit` a minute, refilled continuously, holding `level` at the start. */
class Bucket {
  private at = Date.now();
  constructor(
    readonly limit: number,
    private level: number,
  ) {}
  /** What it holds now. */
  now(): number {
    const now = Date.now();
    this.level = Math.min(this.limit, this.level + ((now - this.at) * this.limit) / MINUTE);
    this.at = now;
    return this.level;
  }
  take(n: number): void {
    this.level -= n;
  }
  /** Ms until it is whole again (the vendors' reset), and until `n` are back. */
  wholeInMs(): number {
    return ((this.limit - this.now()) * MINUTE) / this.limit;
  }
  backInMs(n: number): number {
    return (Math.max(0, n - this.now()) * MINUTE) / this.limit;
  }
}

/**
 * How a server states a bucket's reset: `whole`, the time until it is whole again (as both vendors
 * define it); `next`, the time until the next request is back (the value OpenAI's docs show for a
 * limit of 60: `1s`).
 */
type ResetStyle = 'whole' | 'next';

/** OpenAI's duration form: `1s`, `1m0s`, `720ms`. */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const minutes = Math.floor(ms / MINUTE);
  const seconds = `${Math.ceil((ms % MINUTE) / 1000)}s`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

/** Anthropic's RFC 3339 form, whole seconds rounded up (never early). */
const instant = (ms: number): string =>
  new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString().replace('.000Z', 'Z');

interface Vendor {
  name: string;
  /** The answer's rate-limit fields for the two buckets. */
  fields(requests: Bucket, tokens: Bucket, style: ResetStyle, cost: number): Record<string, string>;
  url: string;
}

const OPENAI: Vendor = {
  name: 'OpenAI',
  url: '/v1/chat/completions',
  fields: (requests, tokens, style, cost) => ({
    'x-ratelimit-limit-requests': String(requests.limit),
    'x-ratelimit-limit-tokens': String(tokens.limit),
    'x-ratelimit-remaining-requests': String(Math.floor(requests.now())),
    'x-ratelimit-remaining-tokens': String(Math.floor(tokens.now())),
    'x-ratelimit-reset-requests': duration(style === 'whole' ? requests.wholeInMs() : requests.backInMs(1)),
    'x-ratelimit-reset-tokens': duration(style === 'whole' ? tokens.wholeInMs() : tokens.backInMs(cost)),
  }),
};

const ANTHROPIC: Vendor = {
  name: 'Anthropic',
  url: '/v1/messages',
  fields: (requests, tokens, style, cost) => ({
    'anthropic-ratelimit-requests-limit': String(requests.limit),
    'anthropic-ratelimit-requests-remaining': String(Math.floor(requests.now())),
    'anthropic-ratelimit-requests-reset': instant(style === 'whole' ? requests.wholeInMs() : requests.backInMs(1)),
    'anthropic-ratelimit-input-tokens-limit': String(tokens.limit),
    'anthropic-ratelimit-input-tokens-remaining': String(Math.floor(tokens.now())),
    'anthropic-ratelimit-input-tokens-reset': instant(style === 'whole' ? tokens.wholeInMs() : tokens.backInMs(cost)),
  }),
};

interface Case {
  /** Requests and tokens a minute, and what each bucket holds when the first call comes. */
  rpm: number;
  tpm: number;
  requestsLeft: number;
  tokensLeft: number;
  style: ResetStyle;
  /** Anthropic sends `retry-after` (whole seconds) on its 429s. */
  retryAfter?: boolean;
  /** The wait the retry must have. */
  delayMs: number;
}

/**
 * Tokens each request takes: within a request's share of the tokens (the limit's tokens per
 * request: 2,500 for OpenAI's 150,000 / 60, 600 for Anthropic's 30,000 / 50), the wait the plugin
 * can know. A bigger request is refused again and waits again (docs/guides/rate-limits.md).
 */
const COST: Record<string, number> = { OpenAI: 1000, Anthropic: 500 };

function llmServer(vendor: Vendor, c: Case): { refusals: () => number } {
  const cost = COST[vendor.name]!;
  const requests = new Bucket(c.rpm, c.requestsLeft);
  const tokens = new Bucket(c.tpm, c.tokensLeft);
  let refusals = 0;
  t.handler = (_req, res) => {
    const ok = requests.now() >= 1 && tokens.now() >= cost;
    if (ok) {
      requests.take(1);
      tokens.take(cost);
    } else refusals++;
    const headers = vendor.fields(requests, tokens, c.style, cost);
    if (!ok && c.retryAfter === true) {
      const waitMs = Math.max(requests.backInMs(1), tokens.backInMs(cost));
      headers['retry-after'] = String(Math.ceil(waitMs / 1000));
    }
    res.writeHead(ok ? 200 : 429, headers).end(ok ? '{"ok":true}' : '{"error":"rate_limit"}');
  };
  return { refusals: () => refusals };
}

/** The limits of the vendors' docs and tiers, both buckets whole: OpenAI's example 60 RPM, 150,000 TPM; Anthropic's 50 RPM, 30,000 ITPM. */
const OPENAI_FULL = { rpm: 60, tpm: 150_000, requestsLeft: 60, tokensLeft: 150_000 };
const ANTHROPIC_FULL = { rpm: 50, tpm: 30_000, requestsLeft: 50, tokensLeft: 30_000 };

const cases: Array<[string, Vendor, Case]> = [
  // The docs' example: 60 a minute, `reset-requests: 1s`; the reset ÷ the limit (17 ms) was refused again.
  [
    'RPM spent, reset as the docs show it (`1s`)',
    OPENAI,
    { ...OPENAI_FULL, requestsLeft: 0, style: 'next', delayMs: 1000 },
  ],
  ['RPM spent, reset when whole (`1m0s`)', OPENAI, { ...OPENAI_FULL, requestsLeft: 0, style: 'whole', delayMs: 1000 }],
  // Requests left (remaining 59), tokens spent: a request's share of the minute (the backoff was refused).
  ['TPM spent, requests left', OPENAI, { ...OPENAI_FULL, tokensLeft: 0, style: 'whole', delayMs: 1000 }],
  [
    'RPM spent, no retry-after, reset at the next request',
    ANTHROPIC,
    { ...ANTHROPIC_FULL, requestsLeft: 0, style: 'next', delayMs: 1200 },
  ],
  [
    'input tokens spent, requests left, no retry-after',
    ANTHROPIC,
    { ...ANTHROPIC_FULL, tokensLeft: 0, style: 'whole', delayMs: 1200 },
  ],
  // Anthropic sends retry-after on its 429s: the server's wait wins.
  [
    'RPM spent, with retry-after',
    ANTHROPIC,
    { ...ANTHROPIC_FULL, requestsLeft: 0, style: 'whole', retryAfter: true, delayMs: 2000 },
  ],
  [
    'input tokens spent, with retry-after',
    ANTHROPIC,
    { ...ANTHROPIC_FULL, tokensLeft: 0, style: 'whole', retryAfter: true, delayMs: 1000 },
  ],
];

test.each(cases)(
  '%s (%s): the retry waits until what it needs is back, and is not refused again',
  async (_name, vendor, c) => {
    fake(NOW);
    const server = llmServer(vendor, c);
    const { http } = client({ random: () => 0.5 });
    const body = { model: 'm', messages: [{ role: 'user', content: 'Hello' }] };
    const response = (await settle(http.post(`${t.server.url}${vendor.url}`, body))) as AxiosResponse;
    expect(response.status).toBe(200);
    expect(response.config.retryState).toMatchObject({ attempts: 2, delaysMs: [c.delayMs] });
    expect(server.refusals()).toBe(1);
    expect(t.server.requests).toHaveLength(2);
  },
);

test('a paced per-minute scope is held to the rate its limit states: after one refusal, nine calls at once are each sent when a request is back', async () => {
  fake(NOW);
  const server = llmServer(OPENAI, {
    rpm: 60,
    tpm: 150_000,
    requestsLeft: 0,
    tokensLeft: 150_000,
    style: 'next',
    delayMs: 1000,
  });
  const { http } = client({ random: () => 0.5 });
  const url = `${t.server.url}${OPENAI.url}`;
  const body = { model: 'm', messages: [] };
  expect((await settle(http.post(url, body))).status).toBe(200);
  const calls = Array.from({ length: 9 }, () => http.post(url, body));
  const done = (await settle(Promise.all(calls), 10)) as AxiosResponse[];
  expect(done.map((r) => r.status)).toEqual(Array(9).fill(200));
  // 60 a minute: the scope is paced under one a second (the stated rate), so none came early.
  expect(server.refusals()).toBe(1);
  expect(t.server.requests).toHaveLength(11);
});
