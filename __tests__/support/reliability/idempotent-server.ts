/**
 * A payments endpoint that implements server-side idempotency the way the IETF Idempotency-Key
 * draft (draft-ietf-httpapi-idempotency-key-header) describes, with seeded fault injection.
 *
 * - The first request with a key is processed, creates one payment record, and its response is
 *   stored. A repeat with the same key and the same body replays the stored response.
 * - A repeat while the first is still being processed gets 409; the same key with a different
 *   body gets 422.
 * - A request without a key is processed every time it arrives (a legacy client).
 * - With `ignoresKeys`, it is a server that does not implement the header: every request is
 *   processed, key or not (most internal and partner APIs).
 *
 * Faults are drawn per arrival from a PRNG seeded by (seed, call id, arrival number of that call),
 * so a run with the same seed injects the same faults into the same attempts however the
 * concurrent requests interleave.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../../lib/policy/random';

export type Fault =
  | 'none'
  /** 503 before the request touches the idempotency store: nothing was done. */
  | 'unavailable'
  /** 429 with `Retry-After: 0` or `1`, before processing. */
  | 'rate-limited'
  /** The record is committed, then the connection is destroyed without a response. */
  | 'reset-after-commit'
  /** The record is committed, then a gateway answers 504. */
  | 'gateway-timeout-after-commit'
  /** The record is committed, then the response is held past the client's timeout. */
  | 'slow-response-after-commit'
  /** Processing itself outlasts the client's timeout, so the retry finds the key in progress (409). */
  | 'slow-processing';

export const FAULTS: readonly Fault[] = [
  'unavailable',
  'rate-limited',
  'reset-after-commit',
  'gateway-timeout-after-commit',
  'slow-response-after-commit',
  'slow-processing',
];

export type FaultMix = Partial<Record<Fault, number>>;

export interface PaymentRecord {
  id: string;
  /** The Idempotency-Key it was created under, if the request carried one. */
  key: string | undefined;
  callId: string;
  amount: number;
}

export interface ServerOptions {
  seed: number;
  /** Probability of each fault per arrival; the rest is `'none'`. */
  mix: FaultMix;
  /** How long the slow faults hold, in ms; should exceed the client's timeout. */
  slowMs: number;
  /** Ignore the Idempotency-Key header: every arrival is processed as a new request. */
  ignoresKeys?: boolean;
}

export interface ChaosServer {
  url: string;
  /** Every payment created, in commit order. */
  records: PaymentRecord[];
  /** Requests that arrived, per call id (taken from the body). */
  arrivals: Map<string, number>;
  /** The Idempotency-Key values seen per call id (`''` for none). */
  keysSeen: Map<string, Set<string>>;
  /** The fault drawn for each arrival, per call id, in arrival order. */
  faultsByCall: Map<string, Fault[]>;
  /** How often each fault was injected. */
  injected: Record<Fault, number>;
  /** Responses by status, as the server wrote them (a destroyed connection counts under 0). */
  statuses: Map<number, number>;
  /** Stored responses replayed for a repeated key. */
  replays: number;
  /** Turns fault injection off (for the recovery pass after the chaos). */
  calm(): void;
  close(): Promise<void>;
}

/** FNV-1a over a string, to turn (seed, call, arrival) into a PRNG seed. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function pickFault(draw: number, mix: FaultMix): Fault {
  let edge = 0;
  for (const fault of FAULTS) {
    edge += mix[fault] ?? 0;
    if (draw < edge) return fault;
  }
  return 'none';
}

interface StoredResponse {
  status: number;
  body: string;
}

interface KeyEntry {
  fingerprint: string;
  response: StoredResponse | undefined;
}

export async function startIdempotentServer(options: ServerOptions): Promise<ChaosServer> {
  const store = new Map<string, KeyEntry>();
  let mix = options.mix;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let nextId = 1;
  const state: Omit<ChaosServer, 'url' | 'close' | 'calm'> = {
    records: [],
    arrivals: new Map(),
    keysSeen: new Map(),
    faultsByCall: new Map(),
    injected: {
      none: 0,
      unavailable: 0,
      'rate-limited': 0,
      'reset-after-commit': 0,
      'gateway-timeout-after-commit': 0,
      'slow-response-after-commit': 0,
      'slow-processing': 0,
    },
    statuses: new Map(),
    replays: 0,
  };
  const count = (status: number): void => {
    state.statuses.set(status, (state.statuses.get(status) ?? 0) + 1);
  };
  const later = (ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const send = (res: http.ServerResponse, status: number, body: string, headers: http.OutgoingHttpHeaders = {}) => {
    count(status);
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };

  const deliver = (req: http.IncomingMessage, res: http.ServerResponse, stored: StoredResponse, fault: Fault) => {
    switch (fault) {
      case 'reset-after-commit':
        count(0);
        req.socket.destroy();
        return;
      case 'gateway-timeout-after-commit':
        send(res, 504, JSON.stringify({ error: 'gateway timeout' }));
        return;
      case 'slow-response-after-commit':
        later(options.slowMs, () => send(res, stored.status, stored.body));
        return;
      default:
        send(res, stored.status, stored.body);
    }
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, raw: string): void => {
    let parsed: { callId?: unknown; amount?: unknown };
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch {
      send(res, 400, JSON.stringify({ error: 'body must be JSON' }));
      return;
    }
    const callId = String(parsed.callId);
    const amount = Number(parsed.amount);
    const header = req.headers['idempotency-key'];
    const sentKey = typeof header === 'string' ? header : undefined;
    const key = options.ignoresKeys ? undefined : sentKey;

    const arrival = (state.arrivals.get(callId) ?? 0) + 1;
    state.arrivals.set(callId, arrival);
    const seen = state.keysSeen.get(callId) ?? new Set<string>();
    seen.add(sentKey ?? '');
    state.keysSeen.set(callId, seen);

    const random = seededRandom(hash32(`${options.seed}:${callId}:${arrival}`));
    const fault = pickFault(random(), mix);
    state.injected[fault]++;
    state.faultsByCall.set(callId, [...(state.faultsByCall.get(callId) ?? []), fault]);

    if (fault === 'unavailable') {
      send(res, 503, JSON.stringify({ error: 'unavailable' }));
      return;
    }
    if (fault === 'rate-limited') {
      send(res, 429, JSON.stringify({ error: 'slow down' }), { 'retry-after': random() < 0.5 ? '0' : '1' });
      return;
    }

    const fingerprint = createHash('sha256').update(raw).digest('hex');
    let entry: KeyEntry | undefined;
    if (key !== undefined) {
      entry = store.get(key);
      if (entry !== undefined) {
        if (entry.fingerprint !== fingerprint) {
          send(res, 422, JSON.stringify({ error: 'Idempotency-Key reused with a different body' }));
        } else if (entry.response === undefined) {
          send(res, 409, JSON.stringify({ error: 'a request with this Idempotency-Key is in progress' }));
        } else {
          state.replays++;
          deliver(req, res, entry.response, fault);
        }
        return;
      }
      entry = { fingerprint, response: undefined };
      store.set(key, entry);
    }

    const commit = (): void => {
      const record: PaymentRecord = { id: `pay_${nextId++}`, key, callId, amount };
      state.records.push(record);
      const stored: StoredResponse = {
        status: 201,
        body: JSON.stringify({ paymentId: record.id, callId, key: key ?? null }),
      };
      if (entry !== undefined) entry.response = stored;
      deliver(req, res, stored, fault);
    };
    if (fault === 'slow-processing') later(options.slowMs, commit);
    else commit();
  };

  const server = http.createServer((req, res) => {
    // Warm-up traffic (sockets, JIT) that touches no state.
    if (req.url === '/health') {
      req.resume();
      res.writeHead(204).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  // A client that gives up mid-response resets the socket; that is part of the chaos, not a bug.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    ...state,
    // The fields above are live: handlers mutate the same objects.
    get replays() {
      return state.replays;
    },
    url: `http://127.0.0.1:${port}`,
    calm: () => {
      mix = {};
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
