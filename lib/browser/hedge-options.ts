/**
 * The browser build's `policy/hedge-options.ts`: a `hedge` value is resolved by the hedging code it
 * carries (`hedging()` from `axios-resilience/hedging`), which stays on the resolved setting for
 * `browser/hedge.ts`. A plain object inherits the plugin's hedging code when the plugin has it
 * (so `retry: { hedge: { delayMs: 50 } }` works per request once the plugin was given `hedging()`);
 * otherwise it is a `TypeError` that names the import.
 */
import type { hedgeable, hedgedSend } from '../engine/hedge';
import type { ResolvedHedge } from '../policy/hedge-options';
import { capabilityOf, notCarried, withCapability } from './capability';

export type { ResolvedHedge };

/** What `axios-resilience/hedging` attaches: the real resolution and engine steps. */
export interface HedgeCapability {
  resolve(where: string, value: unknown, fallback: false | ResolvedHedge): false | ResolvedHedge;
  hedgeable: typeof hedgeable;
  hedgedSend: typeof hedgedSend;
}

export function resolveHedge(where: string, value: unknown, fallback: false | ResolvedHedge): false | ResolvedHedge {
  if (value === undefined) return fallback;
  if (value === false) return false;
  const code = capabilityOf<HedgeCapability>(value) ?? capabilityOf<HedgeCapability>(fallback);
  if (code === undefined) notCarried(where, 'hedge', 'hedging', 'axios-resilience/hedging');
  const resolved = code.resolve(where, value, fallback);
  return resolved === false ? false : withCapability(resolved, code);
}
