/**
 * Exactly once under chaos: 2,000 logical POSTs at concurrency 20 against a real node:http server
 * that implements the IETF Idempotency-Key semantics and injects seeded faults before and after it
 * commits a payment (support/reliability/idempotent-server.ts).
 *
 * Each scenario runs in a child process (support/reliability/chaos-child.ts): under jest's
 * --detectOpenHandles every socket and timer is traced, which slows the client so much that healthy
 * requests hit the 200 ms timeout. The assertions are all here, on what the child reports.
 *
 * Budget and breaker are off: this run measures whether a payment is made exactly once, not load
 * shedding. With them on, calls would also stop with 'budget-exhausted' or 'circuit-open' — their
 * job, but it would blur the counts this test is about.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { reportFigures } from '../support/figures';
import { CLIENT_TIMEOUT_MS, MIXED_FAULTS, lastErrors, tallyPayments } from '../support/reliability/chaos-run';
import type { ScenarioReport } from '../support/reliability/chaos-run';
import type { ChildInput, KeyMode } from '../support/reliability/chaos-child';
import { FAULTS } from '../support/reliability/idempotent-server';
import type { Fault, FaultMix } from '../support/reliability/idempotent-server';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const CHILD = path.join(__dirname, '..', 'support', 'reliability', 'chaos-child.ts');

const CALLS = 2000;
/**
 * Calls in flight at once, in one process with the server. A turn of that process's event loop must
 * stay well inside the client's 200 ms timeout on a busy machine: Node runs expired timers before it
 * reads the sockets, so a turn that long times out requests whose answers, or whose arrival, were
 * only waiting to be read. At 50, beside four busy loops, 1,493-1,952 of the 2,000 calls without a
 * key ended in a timeout (269 are the injected slow faults) and 0-1,219 never reached the server
 * (the test allows 200); at 20: 269-271 and none, in three runs each; idle, a 2,000-call run takes
 * 3.3 s instead of 2 s.
 */
const CONCURRENCY = 20;
const RETRIES = 5;
const BASE_DELAY_MS = 2;
const MAX_DELAY_MS = 50;
const SEED = 20261201;
/**
 * The longest a call may take: every attempt timing out and every wait at the cap (1.45 s), plus
 * slack for a busy machine. This is a hang detector, not a speed test: with two CPU-bound loops per
 * core beside a full CI run (load 10 on 2 cores), the whole child stalled and calls took up to 5.5 s.
 * A call left waiting for nothing still fails it, and a hung one fails the child's timeout.
 */
const CALL_BOUND_MS = (RETRIES + 1) * CLIENT_TIMEOUT_MS + RETRIES * MAX_DELAY_MS + 20_000;
/** Failures a call may still be seeing when it runs out of retries: each is one the server injected. */
const TRANSIENT_LABELS = new Set(['409', '429', '503', '504', 'ECONNRESET', 'ECONNABORTED']);

async function chaos(mix: FaultMix, keys: KeyMode, calls: number, ignoresKeys = false): Promise<ScenarioReport> {
  const input: ChildInput = {
    seed: SEED,
    mix,
    calls,
    concurrency: CONCURRENCY,
    // Re-sending by hand is safe only where the server dedupes the key.
    recover: keys !== 'off' && !ignoresKeys,
    ignoresKeys,
    keys,
    retries: RETRIES,
    baseDelayMs: BASE_DELAY_MS,
    maxDelayMs: MAX_DELAY_MS,
  };
  // The child's own timeout is the bound on the whole run: a hung call fails the test.
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(input)], {
    cwd: ROOT,
    timeout: 150_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as ScenarioReport;
}

function summarise(scenario: string, report: ScenarioReport) {
  const summary = {
    scenario,
    ...tallyPayments(report),
    lastErrors: lastErrors(report),
    replays: report.server.replays,
    status409: report.server.statuses['409'] ?? 0,
    status422: report.server.statuses['422'] ?? 0,
    maxAttempts: Math.max(...report.outcomes.map((o) => o.attempts ?? 0)),
    maxCallMs: Math.round(Math.max(...report.outcomes.map((o) => o.durationMs))),
    wallMs: Math.round(report.wallMs),
    injected: Object.fromEntries(Object.entries(report.server.injected).filter(([, n]) => n > 0)),
  };
  reportFigures('exactly-once', summary);
  return summary;
}

// Each fault alone on 1,000 calls (to keep the file near 30 s), then all of them mixed on 2,000,
// once for each way of declaring that the server dedupes keys.
const scenarios: Array<{ name: string; mix: FaultMix; calls: number; fault?: Fault; keys: KeyMode }> = [
  ...FAULTS.map((fault) => ({
    name: `${fault} on 35 % of attempts, serverDedupes: true`,
    mix: { [fault]: 0.35 },
    calls: 1000,
    fault,
    keys: 'dedupes-true' as const,
  })),
  {
    name: 'every fault mixed, 46 % of attempts, serverDedupes: true',
    mix: MIXED_FAULTS,
    calls: CALLS,
    keys: 'dedupes-true',
  },
  { name: 'every fault mixed, serverDedupes: [its origin]', mix: MIXED_FAULTS, calls: CALLS, keys: 'dedupes-list' },
  { name: 'every fault mixed, serverDedupes: a predicate', mix: MIXED_FAULTS, calls: CALLS, keys: 'dedupes-predicate' },
];

describe('exactly once with Idempotency-Key on a server declared to dedupe (concurrency 20, retries 5)', () => {
  test.each(scenarios)(
    '$calls POSTs, $name: no payment is made twice and every call settles',
    async ({ name, mix, calls, fault, keys }) => {
      const report = await chaos(mix, keys, calls);
      const { server, outcomes } = report;
      const summary = summarise(name, report);

      // Every call settled, each within the bound.
      expect(outcomes).toHaveLength(calls);
      expect(new Set(outcomes.map((o) => o.callId)).size).toBe(calls);
      expect(outcomes.filter((o) => o.durationMs >= CALL_BOUND_MS)).toEqual([]);

      // The faults were really injected, and the plugin really retried through them.
      if (fault !== undefined) expect(server.injected[fault]).toBeGreaterThan(calls * 0.3);
      expect(summary.requestsReceived).toBeGreaterThan(calls * 1.3);
      if (fault === 'slow-processing' || fault === undefined) expect(summary.status409).toBeGreaterThan(0);
      if (fault !== 'unavailable' && fault !== 'rate-limited') expect(summary.replays).toBeGreaterThan(0);

      // No key has more than one record; every attempt of a call carried one and the same key.
      const chaosRecords = server.records.filter((r) => !r.recovery);
      const perKey = new Map<string, number>();
      for (const record of server.records) {
        expect(record.key).not.toBeNull();
        perKey.set(record.key!, (perKey.get(record.key!) ?? 0) + 1);
      }
      expect([...perKey].filter(([, n]) => n > 1)).toEqual([]);
      expect(summary.duplicatePayments).toBe(0);
      for (const [callId, keys] of Object.entries(server.keysSeen)) {
        expect({ callId, keys: keys.length }).toEqual({ callId, keys: 1 });
        expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      }
      // Every attempt sent the same bytes: the server never saw a key reused with another body.
      expect(summary.status422).toBe(0);

      const recordByKey = new Map(server.records.map((r) => [r.key!, r]));
      let resolved = 0;
      let rejectedAfterCommit = 0;
      for (const o of outcomes) {
        expect(o.isAxiosError || o.ok).toBe(true);
        expect(o.idempotencyKey).toBe(server.keysSeen[o.callId]?.[0]);
        const record = recordByKey.get(o.idempotencyKey!);
        if (o.ok) {
          // A resolved call got the record of its own key.
          resolved++;
          expect(o.label).toBe('201');
          expect(record).toMatchObject({ callId: o.callId, recovery: false });
          expect(o.data).toEqual({ paymentId: record!.id, callId: o.callId, key: o.idempotencyKey });
        } else {
          // A rejected call is a clear AxiosError: out of retries on a fault the server injected.
          expect({ stopReason: o.stopReason, attempts: o.attempts }).toEqual({
            stopReason: 'retries-exhausted',
            attempts: RETRIES + 1,
          });
          expect(TRANSIENT_LABELS.has(o.label)).toBe(true);
          expect(record?.callId).toBe(o.callId);
          if (!record!.recovery) rejectedAfterCommit++;
          // Sending it again with retryState.idempotencyKey gets that one payment, never a second.
          expect(o.recovered).toEqual({
            label: '201',
            data: { paymentId: record!.id, callId: o.callId, key: o.idempotencyKey },
          });
        }
      }
      // Records made during the chaos = resolved calls + calls rejected after their commit.
      expect(chaosRecords.length).toBe(resolved + rejectedAfterCommit);
      expect({ resolved, rejectedAfterCommit }).toEqual({
        resolved: summary.resolved,
        rejectedAfterCommit: summary.rejectedAfterCommit,
      });
      // After recovery every logical call has exactly one payment.
      expect(server.records).toHaveLength(calls);
    },
    180_000,
  );
});

/**
 * The server saw one attempt fewer than the client made, and that attempt was the call's last: it
 * timed out on the client before its request arrived (a loaded machine), and stopped the POST.
 */
function lostLastAttempt(o: ScenarioReport['outcomes'][number], arrived: number): boolean {
  return o.attempts === arrived + 1 && o.label === 'ECONNABORTED' && o.stopReason === 'non-idempotent';
}

/** Every request of a call but its last was refused for its rate (429): the only repeat a write gets undeclared. */
function repeatedOnlyAfter429(report: ScenarioReport): Array<[string, Fault[]]> {
  return Object.entries(report.server.faultsByCall).filter(([, faults]) =>
    faults.slice(0, -1).some((fault) => fault !== 'rate-limited'),
  );
}

describe('without Idempotency-Key (idempotencyKey: false), the same mixed chaos', () => {
  test('2000 POSTs: a POST is sent again only after a 429; every other failure stops at once as non-idempotent', async () => {
    const report = await chaos(MIXED_FAULTS, 'off', CALLS);
    const { server, outcomes } = report;
    const summary = summarise('every fault mixed, idempotencyKey: false', report);

    expect(outcomes).toHaveLength(CALLS);
    // On a loaded machine a few attempts time out (200 ms) before their request arrives: only a call's
    // last attempt can be one (a timeout stops a POST), and never many.
    expect(CALLS - Object.keys(server.arrivals).length).toBeLessThan(CALLS * 0.1);
    expect(repeatedOnlyAfter429(report)).toEqual([]);
    expect(Object.values(server.arrivals).filter((n) => n > 1).length).toBeGreaterThan(0);
    expect(summary.duplicatePayments).toBe(0);
    for (const keys of Object.values(server.keysSeen)) expect(keys).toEqual(['']);
    // Faults were injected; each failed call stopped as non-idempotent, or ran out of retries on 429s.
    expect(summary.rejected).toBeGreaterThan(CALLS * 0.3);
    for (const o of outcomes) {
      expect(o.idempotencyKey).toBeUndefined();
      const arrived = server.arrivals[o.callId] ?? 0;
      if (o.attempts !== arrived) expect(lostLastAttempt(o, arrived)).toBe(true);
      if (!o.ok) {
        expect(o.isAxiosError).toBe(true);
        expect(o.label === '429' ? ['non-idempotent', 'retries-exhausted'] : ['non-idempotent']).toContain(
          o.stopReason,
        );
      }
    }
  }, 180_000);
});

describe('the defaults against a server that ignores Idempotency-Key (the key is generated, not declared)', () => {
  test('2000 POSTs through every fault: no order is created twice; each failed call keeps its key', async () => {
    const report = await chaos(MIXED_FAULTS, 'undeclared', CALLS, true);
    const { server, outcomes } = report;
    const summary = summarise('every fault mixed, key-ignoring server, defaults', report);

    expect(outcomes).toHaveLength(CALLS);
    expect(summary.duplicatePayments).toBe(0);
    expect(repeatedOnlyAfter429(report)).toEqual([]);
    expect(summary.rejected).toBeGreaterThan(CALLS * 0.3);
    expect(summary.rejectedAfterCommit).toBeGreaterThan(0);
    for (const o of outcomes) {
      expect(o.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      if (server.keysSeen[o.callId] === undefined) expect(lostLastAttempt(o, 0)).toBe(true);
      else expect(server.keysSeen[o.callId]).toEqual([o.idempotencyKey]);
      if (!o.ok && o.label !== '429')
        expect({ callId: o.callId, stopReason: o.stopReason }).toEqual({
          callId: o.callId,
          stopReason: 'non-idempotent',
        });
    }
  }, 180_000);
});
