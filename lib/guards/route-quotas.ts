/**
 * Which quota each route of one origin counts against, where its server names it on its answers
 * (GitHub's `X-RateLimit-Resource: core`, `search`, `graphql`, …): learned from every answer that
 * names one, successes too, so a spent quota holds every route whose answers named it before any of
 * them is refused. A route not yet seen counts against the quota most of the origin's routes named
 * (GitHub's `core`: "all non-search-related resources in the REST API"), once at least
 * `MAJORITY_ROUTES` did and more than named any other: a route seen alone is too few to guess from,
 * and a wrong guess would hold a call for another quota's reset (an hour, for GitHub's), where the
 * right one costs a single refused request that then tells.
 */

/** Routes that must name a quota before a route not yet seen is taken to count against it. */
const MAJORITY_ROUTES = 2;

export class RouteQuotas {
  /** Route → the quota its answers named (the oldest learned goes first past `kept`). */
  private readonly byRoute = new Map<string, string>();
  /** Quota → how many of the routes kept named it. */
  private readonly routes = new Map<string, number>();

  constructor(private readonly kept: number) {}

  /** A route's answer named `quota`. Most answers repeat what is known: then one map read. */
  learn(route: string, quota: string): void {
    const was = this.byRoute.get(route);
    if (was === quota) return;
    if (was !== undefined) this.count(was, -1);
    this.byRoute.delete(route);
    this.byRoute.set(route, quota);
    this.count(quota, 1);
    if (this.byRoute.size <= this.kept) return;
    const [oldest, its] = this.byRoute.entries().next().value!;
    this.byRoute.delete(oldest);
    this.count(its, -1);
  }

  /** The quota `route` counts against: the one its answers named, else the majority's (`undefined`: none yet). */
  of(route: string): string | undefined {
    return this.byRoute.get(route) ?? this.majority();
  }

  /** The quota the answers of a route matching `path` (any method) named, for a view; `undefined` when none did. */
  named(matches: (route: string) => boolean): string | undefined {
    for (const [route, quota] of this.byRoute) if (matches(route)) return quota;
    return undefined;
  }

  /** The quota most routes named, when at least `MAJORITY_ROUTES` did and more than named any other. */
  majority(): string | undefined {
    let best: string | undefined;
    let most = 0;
    let tied = false;
    for (const [quota, n] of this.routes) {
      if (n > most) [best, most, tied] = [quota, n, false];
      else if (n === most) tied = true;
    }
    return most >= MAJORITY_ROUTES && !tied ? best : undefined;
  }

  private count(quota: string, by: number): void {
    const n = (this.routes.get(quota) ?? 0) + by;
    if (n > 0) this.routes.set(quota, n);
    else this.routes.delete(quota);
  }
}
