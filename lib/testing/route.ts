import type { IdempotentResource, RecordedRequest } from './resource';
import { normalizeSteps } from './steps';
import type { NormalizedStep, Outcome, Step } from './steps';

/**
 * What a route does: a script of steps (`['503', '503', '200']`), or a script with an idempotent
 * resource behind it. The n-th request gets step n; once the script runs out, its last step
 * repeats, so `['503']` is a route that is always down.
 */
export type Route = readonly Step[] | { steps: readonly Step[]; resource?: IdempotentResource };

/** A route key, `'METHOD /path'`, split and checked. */
export function parseRouteKey(key: string): { method: string; path: string } {
  const match = /^([A-Za-z]+) (\/\S*)$/.exec(key);
  if (match === null) {
    throw new TypeError(`axios-resilience/testing: a route key looks like 'POST /v1/payments', got '${key}'`);
  }
  return { method: match[1]!.toUpperCase(), path: match[2]! };
}

/** One route's script and where it has got to. */
export class ScriptedRoute {
  private readonly steps: NormalizedStep[];
  private readonly resource: IdempotentResource | undefined;
  private next = 0;

  constructor(route: Route) {
    const spec = Array.isArray(route)
      ? { steps: route as readonly Step[] }
      : (route as Exclude<Route, readonly Step[]>);
    this.steps = normalizeSteps(spec.steps);
    this.resource = 'resource' in spec ? spec.resource : undefined;
  }

  /** What to do with the next request; notes on `request` which step answered it. */
  take(request: RecordedRequest): Outcome {
    request.step = Math.min(this.next++, this.steps.length - 1);
    const step = this.steps[request.step]!;
    return this.resource === undefined ? step : this.resource.handle(step, request);
  }

  /** How many steps the script has (the last one repeats past it). */
  get length(): number {
    return this.steps.length;
  }
}
