import { Writable } from 'node:stream';
import { runDemo } from '../../examples/demo';
import type { DemoOptions, DemoResult, ScenarioResult } from '../../examples/demo';

// Small delays so the whole demo runs in about a second; the 429's `Retry-After: 2` is then
// clamped to maxDelayMs, which still shows the wait came from the header and not from backoff. The
// client timeout must still let the slow scenario's retry answer: beside a busy loop per core, one
// loopback round trip in a hundred took over 50 ms and the slowest 230, too close to 300.
const FAST: DemoOptions = { baseDelayMs: 5, maxDelayMs: 40, timeoutMs: 600, slowMs: 5000, resetTimeoutMs: 100 };

function scenario(result: DemoResult, name: string): ScenarioResult {
  const found = result.scenarios.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
}

describe('npm run demo', () => {
  let result: DemoResult;

  beforeAll(async () => {
    result = await runDemo({ ...FAST, quiet: true });
  });

  it('reports every scenario as behaving as expected', () => {
    expect(result.scenarios.map((s) => [s.name, s.passed])).toEqual([
      ['503, 503, 200', true],
      ['429 with Retry-After: 2', true],
      ['slower than the client timeout', true],
      ['payment POST, reset after commit', true],
      ['outage: budget and breaker', true],
    ]);
    expect(result.passed).toBe(true);
  });

  it('retries 503, 503 with backoff waits under the cap and ends with 200', () => {
    const s = scenario(result, '503, 503, 200');
    const [call] = s.calls;
    expect(s.serverRequests).toBe(3);
    expect(call).toMatchObject({ ok: true, status: 200, attempts: 3, outcomes: ['503', '503', '200'] });
    expect(call!.delaySources).toEqual(['backoff', 'backoff']);
    // Full jitter: the first wait is below base, the second below 2 × base.
    expect(call!.delaysMs[0]).toBeLessThan(5);
    expect(call!.delaysMs[1]).toBeLessThan(10);
  });

  it('waits what Retry-After asks (clamped to maxDelayMs) after a 429', () => {
    const s = scenario(result, '429 with Retry-After: 2');
    expect(s.serverRequests).toBe(2);
    expect(s.calls[0]).toMatchObject({ ok: true, attempts: 2, delaySources: ['retry-after'] });
    // The origin's pause as the clock measured it: whole ms, and a timer may fire late on a busy host.
    expect(s.calls[0]!.delaysMs[0]).toBeGreaterThanOrEqual(20);
    expect(s.calls[0]!.delaysMs[0]).toBeLessThan(1000);
  });

  it('retries a GET whose first response is slower than the timeout', () => {
    const s = scenario(result, 'slower than the client timeout');
    expect(s.serverRequests).toBe(2);
    expect(s.calls[0]).toMatchObject({ ok: true, attempts: 2, outcomes: ['ECONNABORTED', '200'] });
  });

  it('re-sends a reset payment POST with the same key and the server holds exactly one payment', () => {
    const s = scenario(result, 'payment POST, reset after commit');
    expect(s.serverRequests).toBe(2);
    expect(s.facts).toEqual({ payments: 1, keysSent: 1, sameKey: true });
    expect(s.calls[0]).toMatchObject({ ok: true, attempts: 2, outcomes: ['ECONNRESET', '200'] });
    expect(s.calls[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stops retrying on the budget, opens the breaker, sends nothing while open, and recovers', () => {
    const s = scenario(result, 'outage: budget and breaker');
    expect(s.calls.map((c) => c.stopReason ?? 'ok')).toEqual([
      'budget-exhausted',
      'budget-exhausted',
      'budget-exhausted',
      'circuit-open',
      'circuit-open',
      'ok',
    ]);
    expect(s.calls.map((c) => c.attempts)).toEqual([3, 1, 1, 0, 0, 1]);
    expect(s.calls[4]!.circuitOpen).toBe(true);
    expect(s.facts).toEqual({ sentDuringOutage: 5 });
    expect(s.serverRequests).toBe(6);
  });

  it('marks a scenario as failed when the plugin does not behave as it expects', async () => {
    // A client timeout longer than the slow response: the first attempt succeeds, nothing is retried.
    const wrong = await runDemo({ ...FAST, quiet: true, timeoutMs: 2000, slowMs: 50 });
    const slow = scenario(wrong, 'slower than the client timeout');
    expect(slow.calls[0]).toMatchObject({ ok: true, attempts: 1, outcomes: ['200'] });
    expect(slow.passed).toBe(false);
    expect(wrong.passed).toBe(false);
  });

  it('prints a timeline with offsets, attempts, delays and their reason, key prefixes, and a summary', async () => {
    let text = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    const printed = await runDemo({ ...FAST, out });
    expect(printed.passed).toBe(true);
    expect(text).toMatch(
      /\+\d+\.\d{3}s {2}GET {2}\/flaky +attempt 1 {2}503 +→ retry in \d+ ms \(backoff, full jitter\)/,
    );
    expect(text).toMatch(/GET {2}\/rate-limited attempt 1 {2}429 +→ retry in 40 ms \(Retry-After: 2 s, clamped/);
    expect(text).toMatch(/POST \/payments +attempt 2 {2}200 +key [0-9a-f]{8}… {2}✓ done, replayed/);
    expect(text).toMatch(/not sent .*circuit-open \(CircuitOpenError\)/);
    expect(text).toMatch(/5\. outage: budget and breaker .* pass/);
    // Not a TTY: no progress line, no colour codes.
    expect(text).not.toContain('\r');
    expect(text).not.toContain('\x1b[');
  });
});
