/**
 * The page of `npm run demo:browser` (bundled by examples/browser/server.ts): the five scenarios of
 * `npm run demo`, run in the browser over axios's `xhr` and `fetch` adapters side by side, each
 * call drawn as a timeline of attempts, waits and breaker changes as they happen.
 *
 * In your app the import is `from 'axios-resilience'`; this file imports the repository's sources.
 */
import axios, { getAdapter } from 'axios';
import type { AxiosAdapter, AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { CircuitOpenError, retryPlugin } from '../../lib';
import type { CircuitState, RetryEvent, RetryPluginOptions, StopReason } from '../../lib';
// `axios-resilience/breaker` in your app: a browser build has no breaker without it.
import { breaker } from '../../lib/capabilities/breaker';

type AdapterName = 'xhr' | 'fetch';

interface Timings {
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  slowMs: number;
  resetTimeoutMs: number;
}

/** The terminal demo's defaults; `?base=&max=&timeout=&slow=&reset=` override them. */
function timings(): Timings {
  const query = new URLSearchParams(location.search);
  const read = (name: string, fallback: number): number => {
    const value = Number(query.get(name));
    return query.has(name) && Number.isFinite(value) && value >= 0 ? value : fallback;
  };
  return {
    baseDelayMs: read('base', 200),
    maxDelayMs: read('max', 30_000),
    timeoutMs: read('timeout', 1000),
    slowMs: read('slow', 3000),
    resetTimeoutMs: read('reset', 1000),
  };
}

// ---------------------------------------------------------------------------------------------
// DOM

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; data?: Record<string, string> } = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className !== undefined) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [key, value] of Object.entries(props.data ?? {})) node.dataset[key] = value;
  node.append(...children);
  return node;
}

function outcomeClass(outcome: string): string {
  if (/^\d{3}$/.test(outcome)) return `outcome s${outcome[0]}`;
  return 'outcome net';
}

/** One attempt's line: sent, then its outcome, then what the plugin does next. */
interface AttemptRow {
  outcome(text: string): void;
  wait(delayMs: number, why: string): void;
  end(text: string, ok: boolean): void;
}

/** The list of lines of one scenario. */
class Timeline {
  readonly list = el('ol', { className: 'timeline' });

  constructor(private readonly t0: number) {}

  private at(): HTMLSpanElement {
    return el('span', { className: 'at', text: `+${((performance.now() - this.t0) / 1000).toFixed(3)}s` });
  }

  attempt(method: string, path: string, attempt: number): AttemptRow {
    const outcome = el('span', { className: 'outcome pending', text: 'waiting…' });
    const next = el('span', { className: 'next' });
    const what = `${method} ${path} #${attempt}`;
    const row = el(
      'li',
      { className: 'attempt', data: { attempt: String(attempt) } },
      this.at(),
      el('span', { className: 'what', text: what }),
      outcome,
      next,
    );
    this.list.append(row);
    return {
      outcome(text) {
        outcome.textContent = text;
        outcome.className = outcomeClass(text);
        row.dataset.outcome = text;
      },
      wait(delayMs, why) {
        const fill = el('i');
        next.append(el('span', { className: 'bar' }, fill), `wait ${delayMs} ms (${why})`);
        row.dataset.waitMs = String(delayMs);
        // Fills over the wait, so a person sees the pause as it happens.
        fill.animate([{ width: '0%' }, { width: '100%' }], { duration: delayMs, fill: 'forwards' });
      },
      end(text, ok) {
        next.append(el('span', { className: ok ? 'done' : 'gave-up', text }));
      },
    };
  }

  /** A call that was never sent (the breaker refused it). */
  refused(method: string, path: string, text: string): void {
    this.list.append(
      el(
        'li',
        { className: 'attempt', data: { outcome: 'not-sent' } },
        this.at(),
        el('span', { className: 'what', text: `${method} ${path}` }),
        el('span', { className: 'outcome pending', text: 'not sent' }),
        el('span', { className: 'gave-up', text }),
      ),
    );
  }

  note(text: string, className = 'note'): void {
    this.list.append(el('li', { className }, this.at(), el('span', { text })));
  }
}

// ---------------------------------------------------------------------------------------------
// One client per scenario, with a recording adapter under the plugin

interface CallRecord {
  ok: boolean;
  status?: number;
  attempts: number;
  delaysMs: number[];
  delaySources: Array<RetryEvent['delaySource']>;
  /** Each attempt's status (`'503'`) or error code (`'ERR_NETWORK'`). */
  outcomes: string[];
  idempotencyKey?: string;
  stopReason?: StopReason;
  circuitOpen: boolean;
}

interface Client {
  call(send: (http: AxiosInstance) => Promise<AxiosResponse>): Promise<CallRecord>;
  /** Resolves when the breaker reaches `state`, or after `ms`. */
  breakerReaches(state: CircuitState, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

function outcomeOf(error: unknown): string {
  const e = error as { code?: string; response?: { status?: number } };
  if (e.response?.status !== undefined) return String(e.response.status);
  return e.code ?? 'error';
}

function client(
  adapterName: AdapterName,
  timeline: Timeline,
  options: RetryPluginOptions,
  pill: HTMLElement | undefined,
  axiosConfig: { timeout?: number } = {},
): Client {
  const base = getAdapter(adapterName);
  let current: CallRecord | undefined;
  /** The rows of the call in progress, one per attempt. */
  let rows: AttemptRow[] = [];
  let breakerState: CircuitState = 'closed';
  const waiters = new Set<() => void>();

  const recording: AxiosAdapter = async (config: InternalAxiosRequestConfig) => {
    const path = (config.url ?? '').replace(/^\/api\/[^/]+/, '').replace(/\?.*$/, '');
    const mine = timeline.attempt((config.method ?? 'get').toUpperCase(), path, config.retryState?.attempts ?? 1);
    rows.push(mine);
    try {
      const response = await base(config);
      mine.outcome(String(response.status));
      current?.outcomes.push(String(response.status));
      return response;
    } catch (error) {
      mine.outcome(outcomeOf(error));
      current?.outcomes.push(outcomeOf(error));
      throw error;
    }
  };

  const http = axios.create({ adapter: recording, ...axiosConfig });
  const plugin = retryPlugin({
    ...options,
    onRetry: (event) => {
      current?.delaySources.push(event.delaySource);
      const header = Number(event.error.response?.headers['retry-after']);
      const why =
        event.delaySource === 'retry-after'
          ? `Retry-After ${header} s${event.delayMs < header * 1000 ? ', clamped' : ''}`
          : 'backoff';
      rows.at(-1)?.wait(event.delayMs, why);
    },
    onCircuitStateChange: ({ state }) => {
      breakerState = state;
      timeline.note(`⚡ breaker ${state}`);
      if (pill !== undefined) {
        pill.dataset.state = state;
        pill.textContent = `breaker ${state}`;
        pill.dataset.seen = `${pill.dataset.seen ?? ''} ${state}`.trim();
      }
      for (const wake of [...waiters]) wake();
    },
  });
  plugin.install(http);

  return {
    async call(send) {
      const record: CallRecord = {
        ok: false,
        attempts: 0,
        delaysMs: [],
        delaySources: [],
        outcomes: [],
        circuitOpen: false,
      };
      current = record;
      rows = [];
      try {
        const response = await send(http);
        const state = response.config.retryState;
        Object.assign(record, { ok: true, status: response.status });
        if (state !== undefined) {
          record.attempts = state.attempts;
          record.delaysMs = [...state.delaysMs];
          if (state.idempotencyKey !== undefined) record.idempotencyKey = state.idempotencyKey;
        }
        rows.at(-1)?.end(response.headers['idempotent-replayed'] === 'true' ? '✓ done, replayed' : '✓ done', true);
      } catch (error) {
        const config = (error as { config?: InternalAxiosRequestConfig }).config;
        const state = config?.retryState;
        record.circuitOpen = error instanceof CircuitOpenError;
        if (state !== undefined) {
          record.attempts = state.attempts;
          record.delaysMs = [...state.delaysMs];
          if (state.idempotencyKey !== undefined) record.idempotencyKey = state.idempotencyKey;
          if (state.stopReason !== undefined) record.stopReason = state.stopReason;
        }
        const why = `✗ ${record.stopReason ?? 'error'}`;
        const last = rows.at(-1);
        if (record.attempts === 0 || last === undefined) {
          const path = (config?.url ?? '').replace(/^\/api\/[^/]+/, '');
          timeline.refused((config?.method ?? 'get').toUpperCase(), path, `${why} (${(error as Error).name})`);
        } else last.end(why, false);
      } finally {
        current = undefined;
      }
      return record;
    },
    breakerReaches(state, ms) {
      if (breakerState === state) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish(false), ms);
        const wake = (): void => {
          if (breakerState === state) finish(true);
        };
        const finish = (reached: boolean): void => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(reached);
        };
        waiters.add(wake);
      });
    },
    close: () => plugin.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// The scenarios (the same five as examples/demo.ts)

interface Context {
  adapter: AdapterName;
  t: Timings;
  /** `/api/<run>`: this adapter's own copy of the flaky API. */
  api: string;
  timeline: Timeline;
  pill: HTMLElement;
  facts(): Promise<{ hits: Record<string, number>; payments: number; keys: string[] }>;
  recover(): Promise<void>;
}

interface Outcome {
  expected: string;
  observed: string;
  passed: boolean;
}

interface Scenario {
  id: string;
  name: string;
  intro(t: Timings): string;
  breaker?: true;
  run(ctx: Context): Promise<Outcome>;
}

function short(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => (n > 1 ? `${r} ×${n}` : r)).join(', ');
}

const SCENARIOS: Scenario[] = [
  {
    id: 'flaky',
    name: '503, 503, 200',
    intro: () => 'GET /flaky answers 503 twice, then 200: two backoff waits, then success.',
    async run({ adapter, t, api, timeline }) {
      const c = client(adapter, timeline, { baseDelayMs: t.baseDelayMs, maxDelayMs: t.maxDelayMs }, undefined);
      const call = await c.call((http) => http.get(`${api}/flaky`));
      await c.close();
      return {
        expected: '503 503 200, backoff',
        observed: `${call.outcomes.join(' ')}, waits ${call.delaysMs.join(' + ')} ms`,
        passed:
          call.ok &&
          call.attempts === 3 &&
          call.outcomes.join(',') === '503,503,200' &&
          call.delaySources.every((s) => s === 'backoff'),
      };
    },
  },
  {
    id: 'rate-limited',
    name: '429 with Retry-After: 2',
    intro: (t) =>
      "GET /rate-limited answers 429 with Retry-After: 2 once; the server's word beats the backoff" +
      (t.maxDelayMs < 2000 ? ` (clamped to maxDelayMs = ${t.maxDelayMs} ms).` : '.'),
    async run({ adapter, t, api, timeline }) {
      const c = client(adapter, timeline, { baseDelayMs: t.baseDelayMs, maxDelayMs: t.maxDelayMs }, undefined);
      const call = await c.call((http) => http.get(`${api}/rate-limited`));
      await c.close();
      const want = Math.min(2000, t.maxDelayMs);
      return {
        expected: `429 200, wait ${want} ms (Retry-After)`,
        observed: `${call.outcomes.join(' ')}, wait ${call.delaysMs.join(', ')} ms (${call.delaySources.join(', ')})`,
        passed: call.ok && call.attempts === 2 && call.delaysMs[0] === want && call.delaySources[0] === 'retry-after',
      };
    },
  },
  {
    id: 'slow',
    name: 'slower than the client timeout',
    intro: (t) =>
      `GET /slow takes ${t.slowMs} ms the first time; the client timeout is ${t.timeoutMs} ms. A timed-out GET is retried.`,
    async run({ adapter, t, api, timeline }) {
      const c = client(adapter, timeline, { baseDelayMs: t.baseDelayMs, maxDelayMs: t.maxDelayMs }, undefined, {
        timeout: t.timeoutMs,
      });
      const call = await c.call((http) => http.get(`${api}/slow?slow=${t.slowMs}`));
      await c.close();
      // axios names a timeout differently per adapter.
      const code = adapter === 'xhr' ? 'ECONNABORTED' : 'ETIMEDOUT';
      return {
        expected: `${code} 200`,
        observed: call.outcomes.join(' '),
        passed: call.ok && call.attempts === 2 && call.outcomes[0] === code && call.outcomes[1] === '200',
      };
    },
  },
  {
    id: 'payments',
    name: 'payment POST, reset after commit',
    intro: () =>
      'POST /payments: the server commits the payment, then drops the connection before the answer. ' +
      'This API stores Idempotency-Keys and the client says so (serverDedupes), so the retry carries the same ' +
      'key (from Web Crypto) and the server replays the stored result.',
    async run({ adapter, t, api, timeline, facts }) {
      const options = {
        baseDelayMs: t.baseDelayMs,
        maxDelayMs: t.maxDelayMs,
        idempotencyKey: { serverDedupes: [location.origin] },
      };
      const c = client(adapter, timeline, options, undefined);
      const call = await c.call((http) => http.post(`${api}/payments`, { amount: 4200, currency: 'EUR' }));
      await c.close();
      const server = await facts();
      const sameKey = server.keys.length === 2 && server.keys.every((k) => k === call.idempotencyKey);
      const key = call.idempotencyKey === undefined ? '' : ` ${call.idempotencyKey.slice(0, 8)}…`;
      timeline.note(
        `server: ${server.payments} payment(s), ${server.keys.length} requests, ${sameKey ? `one key${key}` : 'keys differ'}`,
        'info',
      );
      return {
        expected: 'ERR_NETWORK 200, same key, 1 payment',
        observed: `${call.outcomes.join(' ')}, ${sameKey ? 'same key' : 'keys differ'}, ${server.payments} payment(s)`,
        passed:
          call.ok && call.attempts === 2 && call.outcomes[0] === 'ERR_NETWORK' && sameKey && server.payments === 1,
      };
    },
  },
  {
    id: 'outage',
    name: 'outage: budget and breaker',
    breaker: true,
    intro: (t) =>
      'GET /outage answers 503 to everything. Budget: 2 retries + 10 % of first attempts; breaker: opens at ' +
      `> 50 % failed calls once 3 calls are seen, first open wait ${t.resetTimeoutMs} ms (±25 %). Five calls, ` +
      'then the server recovers and one more.',
    async run({ adapter, t, api, timeline, pill, facts, recover }) {
      // The terminal demo's settings: a budget of 2 retries however quiet the client, plus 10 % of
      // first attempts, and a breaker that counts calls and may open from the 3rd.
      const c = client(
        adapter,
        timeline,
        {
          baseDelayMs: t.baseDelayMs,
          maxDelayMs: t.maxDelayMs,
          budget: { ratio: 0.1, minPerSecond: 0.2, windowMs: 10_000 },
          breaker: breaker({ volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeout: t.resetTimeoutMs }),
        },
        pill,
      );
      const calls: CallRecord[] = [];
      for (let i = 0; i < 5; i++) calls.push(await c.call((http) => http.get(`${api}/outage`)));
      const sent = (await facts()).hits.outage ?? 0;
      await recover();
      const openWaitMs = Math.ceil(t.resetTimeoutMs * 1.25);
      timeline.note(`server is back; the breaker half-opens after its open wait (at most ${openWaitMs} ms)`, 'info');
      await c.breakerReaches('half-open', openWaitMs + 5_000);
      const probe = await c.call((http) => http.get(`${api}/outage`));
      await c.close();
      const reasons = calls.map((call) => call.stopReason ?? '-');
      return {
        expected: 'budget ×3, circuit ×2, 5 sent; probe 200',
        observed: `${short(reasons)}, ${sent} sent; probe ${probe.ok ? String(probe.status) : 'failed'}`,
        passed:
          reasons.join(',') === 'budget-exhausted,budget-exhausted,budget-exhausted,circuit-open,circuit-open' &&
          calls[4]!.attempts === 0 &&
          calls[4]!.circuitOpen &&
          sent === 5 &&
          probe.ok &&
          probe.attempts === 1,
      };
    },
  },
];

// ---------------------------------------------------------------------------------------------
// The page

async function runColumn(adapter: AdapterName, t: Timings, host: HTMLElement): Promise<boolean> {
  const run = `${adapter}-${Math.random().toString(36).slice(2, 10)}`;
  const label = adapter === 'xhr' ? 'XMLHttpRequest, the browser default' : 'window.fetch';
  const column = el(
    'section',
    { className: 'column', data: { adapter } },
    el('h2', {}, `adapter: '${adapter}' `, el('small', { text: label })),
  );
  host.append(column);
  const facts = async (): Promise<{ hits: Record<string, number>; payments: number; keys: string[] }> =>
    (await fetch(`/control/${run}/facts`)).json() as Promise<{
      hits: Record<string, number>;
      payments: number;
      keys: string[];
    }>;
  const recover = async (): Promise<void> => {
    await fetch(`/control/${run}/recover`, { method: 'POST' });
  };
  const t0 = performance.now();
  let all = true;
  for (const [i, scenario] of SCENARIOS.entries()) {
    const timeline = new Timeline(t0);
    const verdict = el('span', { className: 'verdict', text: 'running…' });
    const pill = el('span', { className: 'breaker', text: 'breaker closed', data: { state: 'closed' } });
    const heading = el(
      'header',
      {},
      el('h3', { text: `${i + 1}. ${scenario.name}` }),
      ...(scenario.breaker ? [pill] : []),
      verdict,
    );
    const factsLine = el('div', { className: 'facts' });
    const card = el(
      'article',
      { className: 'scenario', data: { scenario: scenario.id, adapter } },
      heading,
      el('p', { className: 'intro', text: scenario.intro(t) }),
      timeline.list,
      factsLine,
    );
    column.append(card);
    const outcome = await scenario.run({ adapter, t, api: `/api/${run}`, timeline, pill, facts, recover });
    card.dataset.passed = String(outcome.passed);
    verdict.textContent = outcome.passed ? '✓ as expected' : '✗ not as expected';
    factsLine.append(
      'expected ',
      el('b', { text: outcome.expected }),
      ' · observed ',
      el('b', { text: outcome.observed }),
    );
    all &&= outcome.passed;
  }
  return all;
}

async function main(): Promise<void> {
  const t = timings();
  document
    .getElementById('about')!
    .append(
      ` Timings: baseDelayMs ${t.baseDelayMs}, maxDelayMs ${t.maxDelayMs}, timeout ${t.timeoutMs} ms, ` +
        `slow answer ${t.slowMs} ms, resetTimeout ${t.resetTimeoutMs} ms.`,
    );
  const host = document.getElementById('columns')!;
  const status = document.getElementById('status')!;
  const started = performance.now();
  const results = await Promise.all((['xhr', 'fetch'] as const).map((adapter) => runColumn(adapter, t, host)));
  const passed = results.every(Boolean);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  status.textContent = passed
    ? `all ${SCENARIOS.length * 2} scenario runs behaved as expected (${seconds} s)`
    : 'some scenarios did not behave as expected';
  document.body.dataset.passed = String(passed);
  document.body.dataset.state = 'done';
}

main().catch((error: unknown) => {
  document.body.dataset.state = 'failed';
  document.getElementById('status')!.textContent = `failed: ${String(error)}`;
  throw error;
});
