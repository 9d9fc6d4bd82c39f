/**
 * The browser build's `policy/hedge-options.ts` and `engine/hedge.ts`: a `hedge` value is resolved
 * by the hedging code it carries (`hedging()` from `axios-resilience/hedging`), which stays on the
 * resolved setting, and the attempt loop's two hedging steps run through it. A plain object
 * inherits the plugin's hedging code when the plugin has it (so `retry: { hedge: { delayMs: 50 } }`
 * works per request once the plugin was given `hedging()`); otherwise it is a `TypeError` that
 * names the import, so a setting without the code never gets past resolution.
 */
import type * as Hedge from '../engine/hedge';
import type * as Options from '../policy/hedge-options';
import type { ResolvedHedge } from '../policy/hedge-options';
import { capabilityOf, notCarried, withCapability } from './capability';

export type { ResolvedHedge };

/** What `axios-resilience/hedging` attaches: the real resolution and engine steps. */
export interface HedgeCapability {
  resolve: typeof Options.resolveHedge;
  hedgeable: typeof Hedge.hedgeable;
  hedgedSend: typeof Hedge.hedgedSend;
}

const code = (hedge: unknown): HedgeCapability | undefined => capabilityOf<HedgeCapability>(hedge);

export const resolveHedge: typeof Options.resolveHedge = (where, value, fallback) => {
  if (value === undefined) return fallback;
  if (value === false) return false;
  const carried = code(value) ?? code(fallback);
  if (carried === undefined) notCarried(where, 'hedge', 'hedging', 'axios-resilience/hedging');
  const resolved = carried.resolve(where, value, fallback);
  return resolved === false ? false : withCapability(resolved, carried);
};

export const hedgeable: typeof Hedge.hedgeable = (run) => code(run.options.hedge)!.hedgeable(run);

export const hedgedSend: typeof Hedge.hedgedSend = (...args) => code(args[1])!.hedgedSend(...args);
