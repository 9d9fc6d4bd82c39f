import { BareRefusals } from './bare-refusals';
import { BoundedMap, routePattern } from './origins';
import { RATE_RULE } from './rate-state';
import { RateLimiter } from './rate-limiter';
import { RouteQuotas } from './route-quotas';
import type { RateLimitEvent, RateLimitStore } from '../types';

/**
 * The rate limiters of one plugin, one per scope, and the rule that picks a throttle's scope: **a
 * throttle holds back only the calls it speaks for**. A scope is, from the narrowest:
 * - the quota the server names (GitHub's `X-RateLimit-Resource: search`), for a spent quota: it holds
 *   the routes whose answers named that quota, successes too, no other; and a route not yet seen
 *   while the quota most of the origin's routes named is spent (`route-quotas.ts`);
 * - a route and the model its request names (Anthropic and OpenAI limit each model apart);
 * - a route (the method and the path with its ids folded);
 * - the origin, only once several routes were throttled within `relaxMs` (the origin itself is limited).
 * `rateLimit.key` replaces all of it with the caller's key. A key that never throttled has no
 * limiter, and a call to it pays one field check (`engaged`). A throttle with no hint engages its
 * scope only once its bare refusals show the rate is the cause (`bare-refusals.ts`).
 */

/** Routes throttled within `relaxMs` at which the origin itself counts as limited. */
const SEVERAL_ROUTES = 3;
/** Routes remembered per origin (their quota, their models, when they were throttled). */
const ROUTES_KEPT = 256;

/** What the limiters need to know of a call: where it goes (its route and model read only if needed). */
export interface Asker {
  readonly origin: string;
  /** `rateLimit.key(config)`, when set: the call's one scope. */
  readonly userKey: string | undefined;
  endpoint(): string;
  model(): string | undefined;
}

/** What the limiters keep of one origin. */
interface Book {
  /** Route → the quota its answers named, and the quota a route not yet seen counts against. */
  resources: RouteQuotas;
  /** Routes throttled per model. */
  modelRoutes: Set<string>;
  /** Route → when it was last throttled (not per model, not a named quota): several make the origin limited. */
  throttled: Map<string, number>;
  /** The origin itself is limited until then (renewed by each throttle of its routes). */
  widenedUntil: number;
}

export class RateLimiters {
  /** Limiters now on. While it is 0, no call looks a limiter up. */
  engaged = 0;
  /** Scopes whose bare refusals are being weighed now (`BareRefusals`). While it is 0, a success counts nothing here. */
  weighing = 0;
  private readonly entries: BoundedMap<RateLimiter>;
  private readonly bare: BareRefusals;
  /**
   * A bare refusal (no hint) of a call under `key`: whether the scope's bare refusals now show the
   * rate is the cause, and if so the rate its origin was served at in the window (`bare-refusals.ts`).
   */
  readonly refusedBare: BareRefusals['refused'];
  /** A success at `origin`: counted where bare refusals are being weighed (callers check `weighing`). */
  readonly succeeded: BareRefusals['succeeded'];
  /** An attempt going out: counted in flight at its origin while bare refusals are weighed there (callers check `weighing`). */
  readonly sending: BareRefusals['sending'];
  /** Its answer (callers check `sending`): no longer in flight; how it went out. */
  readonly landed: BareRefusals['landed'];
  private readonly books: BoundedMap<Book>;

  constructor(
    private readonly now: () => number,
    private readonly maxQueue: number,
    maxOrigins: number,
    private readonly onRateLimit: ((event: RateLimitEvent) => void) | undefined,
    /** The fleet's store (`rateLimit.shared`): its limiters then pace on one shared schedule. */
    private readonly store?: RateLimitStore,
  ) {
    this.entries = new BoundedMap(maxOrigins, (limiter) => {
      if (limiter.state === 'on') this.engaged--;
      limiter.close();
    });
    this.books = new BoundedMap(maxOrigins);
    this.bare = new BareRefusals(maxOrigins, this);
    this.refusedBare = this.bare.refused;
    this.succeeded = this.bare.succeeded;
    this.sending = this.bare.sending;
    this.landed = this.bare.landed;
    // Another process's first throttle engages this process's limiter too, before its own 429.
    store?.start?.((key) => this.for(key).join());
  }

  get(key: string): RateLimiter | undefined {
    return this.entries.get(key);
  }

  /** The limiter pacing `key` now, if one is on: while none is, one field check and no lookup. */
  active(key: string): RateLimiter | undefined {
    if (this.engaged === 0) return undefined;
    const limiter = this.entries.get(key);
    return limiter?.state === 'on' ? limiter : undefined;
  }

  /**
   * The limiter `plugin.limiter(keyOrUrl)` shows: the one with that key; else, for a URL, the one a
   * call to it would be paced by (`keyFor`'s resolution, for any method): the origin's while the
   * origin is limited, the quota's its route counts against while that one is on, else its route's
   * (or a model's of its route); `undefined` when none would pace it.
   */
  find(keyOrUrl: string, origin: string, path: string): RateLimiter | undefined {
    const exact = this.entries.get(keyOrUrl);
    if (exact !== undefined) return exact;
    const book = this.books.get(origin);
    if (book !== undefined && this.now() < book.widenedUntil) return this.entries.get(origin);
    const matches = (route: string): boolean => routePattern(route.split(' ')[1] ?? '').test(path);
    const quota = book === undefined ? undefined : (book.resources.named(matches) ?? book.resources.majority());
    const held = quota === undefined ? undefined : this.active(resourceKey(origin, quota));
    if (held !== undefined) return held;
    for (const limiter of this.entries.values()) {
      const { origin: at, scope } = limiter.where;
      if (at === origin && scope !== undefined && !scope.startsWith('resource ') && matches(scope)) return limiter;
    }
    // An origin this process has not called yet is paced by its own limiter, if the fleet engaged one.
    return book === undefined ? this.entries.get(origin) : undefined;
  }

  /** A call's answer named the quota it counted against (GitHub's `X-RateLimit-Resource`): its route is learned. */
  learn(call: Asker, resource: string): void {
    if (call.userKey === undefined)
      this.books.getOrCreate(call.origin, newBook).resources.learn(call.endpoint(), resource);
  }

  /** The limiter for `key`, made on first use (a throttle). */
  for(key: string): RateLimiter {
    return this.entries.getOrCreate(key, this.create);
  }

  /**
   * The scope a call's next send is paced under: the narrowest one with a limiter on that covers
   * it, or, where none is, the scope its route would be throttled under.
   */
  keyFor(call: Asker): string {
    if (call.userKey !== undefined) return call.userKey;
    const origin = call.origin;
    const book = this.books.get(origin);
    if (book !== undefined && this.now() < book.widenedUntil) return origin;
    const route = call.endpoint();
    // Not called here yet: the fleet may have engaged its route (another process's throttle), else the origin.
    if (book === undefined) return this.active(`${origin} ${route}`) !== undefined ? `${origin} ${route}` : origin;
    const resource = book.resources.of(route);
    if (resource !== undefined) {
      const key = resourceKey(origin, resource);
      if (this.active(key) !== undefined) return key;
    }
    if (book.modelRoutes.has(route)) {
      const model = call.model();
      if (model !== undefined) return `${origin} ${route} model ${model}`;
    }
    return `${origin} ${route}`;
  }

  /**
   * The scope an answer speaks for (a throttle, or a success saying the quota is spent): the quota it
   * names when that is spent, else the route and model, else the route; the origin once several of
   * its routes were throttled lately.
   */
  scopeOf(call: Asker, named: { resource: string | undefined; spent: boolean }, now: number): string {
    if (call.userKey !== undefined) return call.userKey;
    const origin = call.origin;
    const book = this.books.getOrCreate(origin, newBook);
    const route = call.endpoint();
    if (named.resource !== undefined && named.spent) return resourceKey(origin, named.resource);
    const model = call.model();
    if (model !== undefined) {
      if (book.modelRoutes.size >= ROUTES_KEPT) book.modelRoutes.clear();
      book.modelRoutes.add(route);
      return `${origin} ${route} model ${model}`;
    }
    // Last throttled now: the route moves to the end, and past `ROUTES_KEPT` the oldest goes.
    const throttled = book.throttled;
    throttled.delete(route);
    throttled.set(route, now);
    if (throttled.size > ROUTES_KEPT) throttled.delete(throttled.keys().next().value!);
    let recent = 0;
    for (const [known, at] of throttled) {
      if (now - at < RATE_RULE.relaxMs) recent++;
      else throttled.delete(known);
    }
    if (recent >= SEVERAL_ROUTES || now < book.widenedUntil) {
      book.widenedUntil = now + RATE_RULE.relaxMs;
      return origin;
    }
    return `${origin} ${route}`;
  }

  /** Releases every queued call and stops every timer (and the store's, if it has any). */
  async close(): Promise<void> {
    for (const limiter of this.entries.values()) limiter.close();
    this.entries.clear();
    this.books.clear();
    this.bare.clear();
    this.engaged = 0;
    await this.store?.close?.();
  }

  private readonly changed = (event: RateLimitEvent): void => {
    this.engaged += event.state === 'engaged' ? 1 : -1;
    const report = this.onRateLimit;
    if (report === undefined) return;
    try {
      report(event);
    } catch {
      // An observer's throw must not break the call that happened to report the change.
    }
  };

  private readonly create = (key: string): RateLimiter =>
    new RateLimiter(key, this.now, this.maxQueue, this.changed, this.store?.pacing(key, this.now));
}

function newBook(): Book {
  return {
    resources: new RouteQuotas(ROUTES_KEPT),
    modelRoutes: new Set(),
    throttled: new Map(),
    widenedUntil: 0,
  };
}

function resourceKey(origin: string, resource: string): string {
  return `${origin} resource ${resource}`;
}
