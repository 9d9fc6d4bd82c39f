import { isSuccess } from './steps';
import type { NormalizedStep, Outcome } from './steps';

/** One request as a fake server saw it. */
export interface RecordedRequest {
  /** Upper-case method. */
  method: string;
  /** Path with query string, as sent (`/v1/payments?x=1`). */
  path: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** The request body as text (`''` when there was none). */
  body: string;
  /** When the request arrived, `Date.now()` in ms. */
  time: number;
  /** The route key it matched (`'POST /v1/payments'`), or `undefined` when none did (it got a 404). */
  route: string | undefined;
  /** Index of the script step that answered it (the last step repeats), or `-1` for no route. */
  step: number;
}

/** A resource the idempotent endpoint created. */
export interface CreatedResource {
  /** `res_1`, `res_2`, … in creation order. */
  id: string;
  /** The Idempotency-Key of the request that created it, or `undefined` when it carried none. */
  key: string | undefined;
  /** The body of the request that created it. */
  requestBody: string;
  /** When it was created, `Date.now()` in ms. */
  time: number;
}

/** Options of `createIdempotentResource()`. */
export interface IdempotentResourceOptions {
  /**
   * Request header that carries the key (matched case-insensitively).
   * @default 'Idempotency-Key'
   */
  keyHeader?: string;
}

/**
 * An endpoint that creates something (a payment, an order) and honours idempotency keys the way
 * payment APIs do: the first committed request with a key creates the resource; a later one with
 * the same key and body gets the stored resource back (header `Idempotent-Replayed: true`) and
 * creates nothing; the same key with a different body gets 422. A request without a key creates
 * a new resource every time it commits, which is what a test of double charging wants to see.
 *
 * It dedupes keys, so tell the plugin so, or a POST that fails after its commit is not retried:
 *
 * @example
 * const payments = createIdempotentResource();
 * const server = await startFaultServer({
 *   routes: { 'POST /v1/payments': { steps: ['503', { reset: 'after-commit' }, '201'], resource: payments } },
 * });
 * retryPlugin({ idempotencyKey: { serverDedupes: [server.url] } }).install(http);
 */
export interface IdempotentResource {
  /** Resources created so far, over all keys. "Exactly one payment" is `created === 1`. */
  readonly created: number;
  /** Every resource created, in order. */
  readonly resources: readonly CreatedResource[];
  /** How many resources `key` created: 0 or 1 by construction; use `created` to catch a key that changed between attempts. */
  createdFor(key: string): number;
  /** How many requests carried `key`, committed or not. */
  requestsWith(key: string): number;
  /** Decides the reply to one request under one script step. Used by the fault server and the nock helpers. */
  handle(step: NormalizedStep, request: Pick<RecordedRequest, 'headers' | 'body' | 'time'>): Outcome;
}

function headerOf(headers: RecordedRequest['headers'], name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** Makes an idempotent resource endpoint; put it on a route with `{ steps, resource }`. */
export function createIdempotentResource(options: IdempotentResourceOptions = {}): IdempotentResource {
  const keyHeader = options.keyHeader ?? 'Idempotency-Key';
  const resources: CreatedResource[] = [];
  const byKey = new Map<string, CreatedResource>();
  const seen = new Map<string, number>();

  const view = (resource: CreatedResource) => ({ id: resource.id, idempotencyKey: resource.key ?? null });

  return {
    get created() {
      return resources.length;
    },
    resources,
    createdFor(key) {
      return resources.filter((resource) => resource.key === key).length;
    },
    requestsWith(key) {
      return seen.get(key) ?? 0;
    },
    handle(step, request) {
      const key = headerOf(request.headers, keyHeader);
      if (key !== undefined) seen.set(key, (seen.get(key) ?? 0) + 1);
      // A fault that happens before the work is done leaves no trace on the server.
      if (!step.commit) return step;
      const stored = key === undefined ? undefined : byKey.get(key);
      if (stored !== undefined && stored.requestBody !== request.body) {
        return {
          kind: 'respond',
          status: 422,
          headers: {},
          body: { error: 'idempotency key reused with a different request body' },
          delayMs: step.delayMs,
        };
      }
      let resource = stored;
      if (resource === undefined) {
        resource = { id: `res_${resources.length + 1}`, key, requestBody: request.body, time: request.time };
        resources.push(resource);
        if (key !== undefined) byKey.set(key, resource);
      }
      if (step.kind === 'reset') return step;
      const outcome = { ...step };
      if (stored !== undefined) outcome.headers = { ...outcome.headers, 'Idempotent-Replayed': 'true' };
      if (outcome.body === undefined && isSuccess(outcome.status)) outcome.body = view(resource);
      return outcome;
    },
  };
}
