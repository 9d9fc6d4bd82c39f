/**
 * Drives many logical POSTs against the idempotent server and reports, in plain JSON, what every
 * call ended with and what the server recorded. Used by the exactly-once test (in a child process,
 * see chaos-child.ts).
 */
import http from 'node:http';
import axios from 'axios';
import type { AxiosInstance } from 'axios';
import { startIdempotentServer } from './idempotent-server';
import type { Fault, FaultMix } from './idempotent-server';

/** The client's timeout and the server's slow faults: a slow fault always outlasts the timeout. */
export const CLIENT_TIMEOUT_MS = 200;
export const SLOW_MS = 300;

/** The mix of every fault at once: about half of all attempts fail one way or another. */
export const MIXED_FAULTS: FaultMix = {
  unavailable: 0.1,
  'rate-limited': 0.08,
  'reset-after-commit': 0.08,
  'gateway-timeout-after-commit': 0.08,
  'slow-response-after-commit': 0.06,
  'slow-processing': 0.06,
};

/** One logical call as the caller saw it. */
export interface CallOutcome {
  callId: string;
  durationMs: number;
  ok: boolean;
  /** The response status, or for a rejection the status or error code (`'ECONNRESET'`). */
  label: string;
  isAxiosError: boolean;
  /** From `config.retryState`, when the plugin handled the call. */
  attempts?: number;
  idempotencyKey?: string;
  stopReason?: string;
  /** The response body of a resolved call. */
  data?: unknown;
  /**
   * With `recover`: a rejected call that carried a key, sent once more with the same key after
   * the chaos (faults off), as a caller reconciling an unknown outcome would.
   */
  recovered?: { label: string; data?: unknown };
}

/** What the server saw. */
export interface ServerReport {
  /** Every payment record; `recovery` marks those made by the recovery pass, after the chaos. */
  records: Array<{ id: string; key: string | null; callId: string; recovery: boolean }>;
  /** Requests received per call id (recovery pass included). */
  arrivals: Record<string, number>;
  /** Requests received before the recovery pass. */
  requestsDuringRun: number;
  /** Idempotency-Key values received per call id (`''` for none). */
  keysSeen: Record<string, string[]>;
  /** The fault the server drew for each request of a call, in order (`'none'` for a clean answer). */
  faultsByCall: Record<string, Fault[]>;
  injected: Record<Fault, number>;
  statuses: Record<string, number>;
  replays: number;
}

export interface ScenarioReport {
  outcomes: CallOutcome[];
  server: ServerReport;
  wallMs: number;
}

export interface ScenarioOptions {
  seed: number;
  mix: FaultMix;
  calls: number;
  concurrency: number;
  /** After the run, re-send each rejected call that had a key, with that key, faults off. */
  recover?: boolean;
  /** The server does not implement Idempotency-Key: it processes every request it gets. */
  ignoresKeys?: boolean;
}

/** A client with its own keep-alive pool, so a run never shares sockets with another. */
export function chaosClient(): { client: AxiosInstance; agent: http.Agent } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const client = axios.create({ timeout: CLIENT_TIMEOUT_MS, httpAgent: agent, proxy: false });
  return { client, agent };
}

function outcomeOf(callId: string, durationMs: number, result: unknown, ok: boolean): CallOutcome {
  const outcome: CallOutcome = { callId, durationMs, ok, label: '', isAxiosError: axios.isAxiosError(result) };
  if (!axios.isAxiosError(result) && !ok) {
    outcome.label = result instanceof Error ? `${result.name}: ${result.message}` : String(result);
    return outcome;
  }
  const carrier = result as { config?: { retryState?: Record<string, unknown> }; status?: number; data?: unknown };
  if (ok) {
    outcome.label = String(carrier.status);
    outcome.data = carrier.data;
  } else {
    const error = result as import('axios').AxiosError;
    outcome.label = error.response ? String(error.response.status) : (error.code ?? 'no-code');
  }
  const state = carrier.config?.retryState;
  if (state !== undefined) {
    outcome.attempts = state.attempts as number;
    if (typeof state.idempotencyKey === 'string') outcome.idempotencyKey = state.idempotencyKey;
    if (typeof state.stopReason === 'string') outcome.stopReason = state.stopReason;
  }
  return outcome;
}

/**
 * Starts a server, lets `setup` install a retry library on a fresh client, warms the sockets
 * up, sends `calls` logical POSTs `concurrency` at a time, and tears everything down.
 */
export async function runScenario(
  options: ScenarioOptions,
  setup: (client: AxiosInstance, serverUrl: string) => (() => Promise<void> | void) | void,
): Promise<ScenarioReport> {
  const server = await startIdempotentServer({
    seed: options.seed,
    mix: options.mix,
    slowMs: SLOW_MS,
    ignoresKeys: options.ignoresKeys ?? false,
  });
  const { client, agent } = chaosClient();
  try {
    // Open the sockets and warm the JIT first, so a cold start is not counted as a fault.
    const warm = axios.create({ httpAgent: agent, proxy: false });
    for (let round = 0; round < 4; round++) {
      await Promise.all(Array.from({ length: options.concurrency }, () => warm.get(`${server.url}/health`)));
    }
    const teardown = setup(client, server.url);
    const outcomes: CallOutcome[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < options.calls) {
        const index = next++;
        const callId = `call-${index}`;
        const started = performance.now();
        try {
          const response = await client.post(`${server.url}/payments`, { callId, amount: 100 + (index % 900) });
          outcomes.push(outcomeOf(callId, performance.now() - started, response, true));
        } catch (error) {
          outcomes.push(outcomeOf(callId, performance.now() - started, error, false));
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    const wallMs = performance.now() - started;
    if (teardown) await teardown();
    // Let processing that outlived its caller (slow-processing) commit before the books are read.
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS + 100));
    const committedDuringRun = server.records.length;
    let requestsDuringRun = 0;
    for (const n of server.arrivals.values()) requestsDuringRun += n;
    if (options.recover) {
      server.calm();
      const plain = axios.create({ httpAgent: agent, proxy: false, validateStatus: () => true });
      for (const outcome of outcomes) {
        if (outcome.ok || outcome.idempotencyKey === undefined) continue;
        const index = Number(outcome.callId.slice('call-'.length));
        const response = await plain.post(
          `${server.url}/payments`,
          { callId: outcome.callId, amount: 100 + (index % 900) },
          { headers: { 'Idempotency-Key': outcome.idempotencyKey } },
        );
        outcome.recovered = { label: String(response.status), data: response.data };
      }
    }
    return {
      outcomes,
      wallMs,
      server: {
        records: server.records.map((r, i) => ({
          id: r.id,
          key: r.key ?? null,
          callId: r.callId,
          recovery: i >= committedDuringRun,
        })),
        arrivals: Object.fromEntries(server.arrivals),
        requestsDuringRun,
        keysSeen: Object.fromEntries([...server.keysSeen].map(([id, keys]) => [id, [...keys]])),
        faultsByCall: Object.fromEntries(server.faultsByCall),
        injected: { ...server.injected },
        statuses: Object.fromEntries([...server.statuses].map(([status, n]) => [String(status), n])),
        replays: server.replays,
      },
    };
  } finally {
    agent.destroy();
    await server.close();
  }
}

export interface PaymentTally {
  logicalCalls: number;
  requestsReceived: number;
  records: number;
  resolved: number;
  rejected: number;
  /** Rejected calls whose payment was nevertheless committed (the caller must look it up). */
  rejectedAfterCommit: number;
  /** Call ids with more than one payment record. */
  callsChargedTwice: number;
  /** Records beyond the first per call id: the extra charges. */
  duplicatePayments: number;
}

export function tallyPayments(report: ScenarioReport): PaymentTally {
  const perCall = new Map<string, number>();
  const records = report.server.records.filter((r) => !r.recovery);
  for (const record of records) perCall.set(record.callId, (perCall.get(record.callId) ?? 0) + 1);
  let callsChargedTwice = 0;
  let duplicatePayments = 0;
  for (const n of perCall.values()) {
    if (n > 1) callsChargedTwice++;
    duplicatePayments += n - 1;
  }
  const rejected = report.outcomes.filter((o) => !o.ok);
  return {
    logicalCalls: report.outcomes.length,
    requestsReceived: report.server.requestsDuringRun,
    records: records.length,
    resolved: report.outcomes.length - rejected.length,
    rejected: rejected.length,
    rejectedAfterCommit: rejected.filter((o) => perCall.has(o.callId)).length,
    callsChargedTwice,
    duplicatePayments,
  };
}

/** How many rejected calls ended with each status or code. */
export function lastErrors(report: ScenarioReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of report.outcomes) if (!o.ok) counts[o.label] = (counts[o.label] ?? 0) + 1;
  return counts;
}
