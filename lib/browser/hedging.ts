/**
 * `axios-resilience/hedging` in a browser build: `hedging(options)` returns the `hedge` options
 * with the hedging code attached, so the app that hedges is the app that ships it.
 * @module axios-resilience/hedging
 */
import { hedgeable, hedgedSend } from '../engine/hedge';
import { resolveHedge } from '../policy/hedge-options';
import type { HedgeOptions } from '../types';
import { withCapability } from './capability';
import type { HedgeCapability } from './hedge';

const code: HedgeCapability = {
  resolve: resolveHedge,
  hedgeable,
  hedgedSend,
};

export function hedging(options: HedgeOptions): HedgeOptions {
  return withCapability(options, code);
}
