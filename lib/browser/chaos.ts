/**
 * The browser build's `engine/chaos.ts`: a call's adapter is wrapped by the fault injection code the
 * resolved `chaos` setting carries (see `browser/chaos-options.ts`).
 */
import type { withChaos as wrap } from '../engine/chaos';
import { capabilityOf } from './capability';
import type { ChaosCapability } from './chaos-options';

export const withChaos: typeof wrap = (base, chaos, state, shared, attemptHeader) =>
  capabilityOf<ChaosCapability>(chaos)!.withChaos(base, chaos, state, shared, attemptHeader);
