import { DEFAULTS, MAX_TIMER_MS } from './defaults';
import { fail, nonNegative, optionsObject, own } from './validate';

/** The `hedge` option: when to send a second copy of a slow call, and how many. */

/** Hedging settings, validated; `percentile` is set for an adaptive delay (0.95 for `'p95'`). */
export interface ResolvedHedge {
  delayMs: number;
  percentile: number | undefined;
  maxHedges: number;
  minDelayMs: number;
  fallbackDelayMs: number;
}

const PERCENTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };
const HEDGE_FIELDS = new Set(['delayMs', ...Object.keys(DEFAULTS.hedgeFields)]);

export function resolveHedge(where: string, value: unknown, fallback: false | ResolvedHedge): false | ResolvedHedge {
  if (value === undefined) return fallback;
  if (value === false) return false;
  const input = optionsObject(where, 'hedge', value, HEDGE_FIELDS, 'E39');
  const delay = own(input, 'delayMs');
  const percentile = typeof delay === 'string' && Object.hasOwn(PERCENTILES, delay) ? PERCENTILES[delay] : undefined;
  if (
    percentile === undefined &&
    (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_TIMER_MS)
  ) {
    fail(where, 'hedge.delayMs', 'E40', delay);
  }
  const defaults = DEFAULTS.hedgeFields;
  const maxHedges = own(input, 'maxHedges') ?? defaults.maxHedges;
  if (typeof maxHedges !== 'number' || !Number.isSafeInteger(maxHedges) || maxHedges < 1 || maxHedges > 10) {
    fail(where, 'hedge.maxHedges', 'E41', maxHedges);
  }
  return {
    delayMs: percentile === undefined ? (delay as number) : 0,
    percentile,
    maxHedges,
    minDelayMs: nonNegative(where, 'hedge.minDelayMs', own(input, 'minDelayMs'), defaults.minDelayMs),
    fallbackDelayMs: nonNegative(
      where,
      'hedge.fallbackDelayMs',
      own(input, 'fallbackDelayMs'),
      defaults.fallbackDelayMs,
    ),
  };
}
