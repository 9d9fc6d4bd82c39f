/**
 * Scripted steps: what a fake server does with the n-th request to a route. Shared by the
 * `node:http` fault server and the nock helpers, so one script means the same thing in both.
 */

/** Reply with this status (`503` or `'503'`), an empty body and no extra headers. */
export type StatusStep = number | `${number}`;

/** Reply with a status, headers and a body, optionally after a delay. */
export interface ResponseStep {
  /**
   * The status to reply with.
   * @default 200
   */
  status?: number;
  /** Response headers, such as `{ 'Retry-After': '5' }`. */
  headers?: Record<string, string>;
  /**
   * The body: a string is sent as is, anything else as JSON. On an idempotent resource a 2xx
   * step without a body replies with the resource.
   * @default ''
   */
  body?: unknown;
  /**
   * Wait this long before sending the response headers (a slow or hung server), in ms.
   * @default 0
   */
  delayMs?: number;
  /**
   * On an idempotent resource: whether this step creates the resource before replying. `true` on a
   * 5xx is the "the gateway timed out but the work was done" case.
   * @default true for a 2xx status, false otherwise
   */
  commit?: boolean;
}

/**
 * Drop the connection without a response (the client sees `ECONNRESET` / "socket hang up").
 * `'after-commit'`: on an idempotent resource the resource is created first, so a client that
 * retries without a key creates a second one. `'before-commit'`: nothing is created.
 */
export interface ResetStep {
  reset: 'before-commit' | 'after-commit';
  /**
   * Wait this long before dropping the connection, in ms.
   * @default 0
   */
  delayMs?: number;
}

/** One scripted reaction: a status, a full response, or a dropped connection. */
export type Step = StatusStep | ResponseStep | ResetStep;

/** What a fake server does with one request, once the script and the resource have decided. */
export type Outcome =
  | { kind: 'respond'; status: number; headers: Record<string, string>; body: unknown; delayMs: number }
  | { kind: 'reset'; delayMs: number };

/** A step in one shape, with every default filled in: its outcome, and whether it creates the resource. */
export type NormalizedStep = Outcome & { commit: boolean };

function checkDelay(delayMs: unknown): number {
  if (delayMs === undefined) return 0;
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw new TypeError(`axios-resilience/testing: delayMs must be a finite number >= 0, got ${String(delayMs)}`);
  }
  return delayMs;
}

function checkStatus(status: unknown): number {
  const value = typeof status === 'string' && /^\d{3}$/.test(status) ? Number(status) : status;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > 599) {
    throw new TypeError(`axios-resilience/testing: a status must be 100-599, got ${String(status)}`);
  }
  return value;
}

/** Validates a step and fills in its defaults; throws a `TypeError` on a malformed one. */
export function normalizeStep(step: Step): NormalizedStep {
  if (typeof step === 'number' || typeof step === 'string') return normalizeStep({ status: checkStatus(step) });
  if (step === null || typeof step !== 'object') {
    throw new TypeError(`axios-resilience/testing: a step must be a status or an object, got ${String(step)}`);
  }
  if ('reset' in step) {
    if (step.reset !== 'before-commit' && step.reset !== 'after-commit') {
      throw new TypeError(`axios-resilience/testing: reset must be 'before-commit' or 'after-commit'`);
    }
    return { kind: 'reset', commit: step.reset === 'after-commit', delayMs: checkDelay(step.delayMs) };
  }
  const status = checkStatus(step.status ?? 200);
  return {
    kind: 'respond',
    status,
    headers: { ...step.headers },
    body: step.body,
    delayMs: checkDelay(step.delayMs),
    commit: step.commit ?? isSuccess(status),
  };
}

/** Validates a whole script; an empty one is a mistake, since there would be nothing to repeat. */
export function normalizeSteps(steps: readonly Step[]): NormalizedStep[] {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new TypeError('axios-resilience/testing: a route needs at least one step');
  }
  return steps.map(normalizeStep);
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** A body as text on the wire: a string as it is, anything else as JSON, nothing as `''`. */
export function bodyText(body: unknown): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** A response's headers: a body sent as JSON is labelled so, unless the step named its own type. */
export function replyHeaders(body: unknown, headers: Record<string, string>): Record<string, string> {
  const json = body !== undefined && typeof body !== 'string';
  const named = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  return json && !named ? { ...headers, 'content-type': 'application/json' } : { ...headers };
}
