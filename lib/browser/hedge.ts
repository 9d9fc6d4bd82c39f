/**
 * The browser build's `engine/hedge.ts`: the attempt loop's two hedging steps, run by the code the
 * resolved `hedge` setting carries (see `browser/hedge-options.ts`; a setting without it never
 * gets past resolution).
 */
import type { hedgeable as canHedge, hedgedSend as race } from '../engine/hedge';
import { capabilityOf } from './capability';
import type { HedgeCapability } from './hedge-options';

const code = (hedge: unknown): HedgeCapability => capabilityOf<HedgeCapability>(hedge)!;

export const hedgeable: typeof canHedge = (run) => code(run.options.hedge).hedgeable(run);

export const hedgedSend: typeof race = (run, hedge, attemptConfig) => code(hedge).hedgedSend(run, hedge, attemptConfig);
