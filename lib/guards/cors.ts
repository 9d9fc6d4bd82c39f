import type { ResolvedOptions } from '../policy/options';
import { pageOrigin } from '../policy/origin';
import type { RetryState } from '../types';

/**
 * A browser does not tell a page why a cross-origin request failed: a CORS refusal (a preflight
 * that does not allow the Idempotency-Key or the attempt header), a refused connection and a reset
 * all reach axios as `ERR_NETWORK` with no response. A refusal repeats on every attempt, so
 * retrying it only delays the error, and counting it would open the breaker for the whole origin.
 *
 * So, until an origin has answered one request carrying the plugin's headers, such a failure is a
 * suspected refusal: retried once (a blip at first contact), not counted against the breaker, and
 * reported with stop reason `'cors-suspected'`. Once the origin has answered, its preflight is
 * known to pass and `ERR_NETWORK` there is an ordinary network failure again. In Node there is no
 * page, and none of this applies.
 */
export class CorsEvidence {
  /** The page's origin in a browser (window or worker), as `originOf` writes it; `undefined` in Node. */
  readonly page = pageOrigin();
  /** Origins that answered (any status) a request carrying the plugin's headers. */
  private readonly answered = new Set<string>();

  /** The call is cross-origin in a browser and sends a header the plugin added that is not CORS-safelisted. */
  applies(origin: string, state: RetryState, options: Pick<ResolvedOptions, 'attemptHeader'>): boolean {
    if (this.page === undefined || origin === this.page) return false;
    return state.idempotencyKey !== undefined || options.attemptHeader !== false;
  }

  /** The origin answered: its preflight allows the plugin's headers. */
  answer(origin: string): void {
    // Bounded like the other per-origin state; forgetting only costs a retry.
    if (this.answered.size >= 1000) this.answered.clear();
    this.answered.add(origin);
  }

  /** An opaque network failure from an origin that has not answered yet: maybe a CORS refusal. */
  suspect(origin: string, error: unknown): boolean {
    if (this.answered.has(origin)) return false;
    const failure = error as { code?: unknown; response?: unknown } | null;
    return (
      failure !== null && typeof failure === 'object' && failure.code === 'ERR_NETWORK' && failure.response == null
    );
  }
}
