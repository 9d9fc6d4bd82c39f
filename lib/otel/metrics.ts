import type { PluginEventName, PluginEvents } from '../types';
import type { MeterLike } from './shapes';
import { serverAddress } from './shapes';

/** What `instrumentMetrics` needs of the plugin: `retryPlugin()` returns one. */
export interface ObservablePlugin {
  on<K extends PluginEventName>(event: K, listener: (event: PluginEvents[K]) => void): () => void;
}

/** Options of {@link instrumentMetrics}. */
export interface InstrumentMetricsOptions {
  /**
   * The `server.address` of an origin or a breaker / rate-limit key. The default gives an origin's
   * host name and any other key as it is: a `rateLimit.key` that returns a token would put the
   * token on your dashboards, so map such keys to something you may show.
   * @default the origin's host name, or the key itself
   */
  serverAddress?: (originOrKey: string) => string;
}

/** The names of the instruments, as `instrumentMetrics` creates them. */
export const METRIC_NAMES = {
  retries: 'axios_resilience.retries',
  giveUps: 'axios_resilience.give_ups',
  breakerOpens: 'axios_resilience.breaker.opens',
  rateLimiterEngagements: 'axios_resilience.rate_limiter.engagements',
  budgetRefusals: 'axios_resilience.budget.refusals',
  calls: 'axios_resilience.calls',
  attempts: 'axios_resilience.attempts',
  retryDelay: 'axios_resilience.retry.delay',
} as const;

/**
 * Counts what `plugin` does on `meter` (an OpenTelemetry `Meter`):
 *
 * - `axios_resilience.retries` (`server.address`, `reason`: `'503'`, `'ECONNRESET'`, `'rate-limited'`, …;
 *   `axios_resilience.injected: true` when `chaos` injected the failure): retries scheduled.
 * - `axios_resilience.give_ups` (`server.address`, `stop_reason`): calls that failed for good.
 * - `axios_resilience.breaker.opens` (`server.address`): a breaker opened (from closed or half-open).
 * - `axios_resilience.rate_limiter.engagements` (`server.address`): a server began throttling and
 *   the origin's calls now wait their turn.
 * - `axios_resilience.budget.refusals` (`server.address`): calls stopped because the retry budget
 *   was spent (also counted in `give_ups` with `stop_reason: 'budget-exhausted'`).
 * - `axios_resilience.calls` (`server.address`, `outcome`: `'success'` or `'failure'`) and
 *   `axios_resilience.attempts` (`server.address`): calls the plugin ran to the end, and the
 *   requests they sent (attempts ÷ calls is the load retries add).
 * - `axios_resilience.retry.delay` (histogram, ms; `server.address`, `delay_source`: `backoff`,
 *   `retry-after`, `delay` or `rate-limit`): the wait before each retry.
 *
 * Returns the function that stops counting (removes its listeners; the instruments stay).
 */
export function instrumentMetrics(
  plugin: ObservablePlugin,
  meter: MeterLike,
  options: InstrumentMetricsOptions = {},
): () => void {
  const address = options.serverAddress ?? serverAddress;
  const counter = (name: string, description: string, unit = '{event}') =>
    meter.createCounter(name, { description, unit });
  const retries = counter(METRIC_NAMES.retries, 'Retries scheduled, by the failure retried', '{retry}');
  const giveUps = counter(METRIC_NAMES.giveUps, 'Calls that failed for good, by stop reason', '{call}');
  const opens = counter(METRIC_NAMES.breakerOpens, 'Circuit breakers that opened', '{open}');
  const engagements = counter(METRIC_NAMES.rateLimiterEngagements, 'Rate limiters that began pacing an origin');
  const refusals = counter(METRIC_NAMES.budgetRefusals, 'Calls stopped by a spent retry budget', '{call}');
  const calls = counter(METRIC_NAMES.calls, 'Calls the plugin ran to the end, by outcome', '{call}');
  const attempts = counter(METRIC_NAMES.attempts, 'Requests sent, first attempts, retries and hedges', '{request}');
  const delay = meter.createHistogram(METRIC_NAMES.retryDelay, { description: 'Wait before each retry', unit: 'ms' });

  // Listeners (`plugin.on()`), not hooks: a per-request hook does not hide a call from them.
  const stops = [
    plugin.on('retry', (event) => {
      const server = address(event.origin);
      // An injected failure (chaos) is marked, so a dashboard tells a drill from an outage.
      const marked = event.injected === true ? { 'axios_resilience.injected': true } : undefined;
      retries.add(1, { 'server.address': server, reason: event.reason, ...marked });
      delay.record(event.delayMs, { 'server.address': server, delay_source: event.delaySource });
    }),
    plugin.on('giveUp', (event) => {
      const server = address(event.origin);
      giveUps.add(1, { 'server.address': server, stop_reason: event.stopReason });
      if (event.stopReason === 'budget-exhausted') refusals.add(1, { 'server.address': server });
    }),
    plugin.on('settle', (event) => {
      const server = address(event.origin);
      calls.add(1, { 'server.address': server, outcome: event.stopReason === undefined ? 'success' : 'failure' });
      attempts.add(event.retryState.attempts, { 'server.address': server });
    }),
    plugin.on('circuitStateChange', (change) => {
      if (change.state === 'open') opens.add(1, { 'server.address': address(change.origin) });
    }),
    plugin.on('rateLimit', (event) => {
      if (event.state === 'engaged') engagements.add(1, { 'server.address': address(event.origin) });
    }),
  ];
  return () => {
    for (const stop of stops.splice(0)) stop();
  };
}
