/**
 * The browser build's `engine/chaos.ts`: a call's adapter is wrapped by the fault injection code the
 * resolved `chaos` setting carries (see `browser/chaos-options.ts`).
 */
import type { ResolvedChaos } from '../policy/chaos-options';
import type { CallStart } from '../engine/call-run';
import { capabilityOf } from './capability';
import type { ChaosCapability } from './chaos-options';

export function withChaos(run: CallStart, chaos: ResolvedChaos): void {
  capabilityOf<ChaosCapability>(chaos)!.withChaos(run, chaos);
}
