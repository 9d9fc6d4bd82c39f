/**
 * The browser build's `engine/chaos.ts`: a call's adapter is wrapped by the fault injection code the
 * resolved `chaos` setting carries (see `browser/chaos-options.ts`).
 */
import type { ResolvedChaos } from '../policy/chaos-options';
import type { CallContext } from '../engine/context';
import { capabilityOf } from './capability';
import type { ChaosCapability } from './chaos-options';

export function withChaos(context: CallContext, chaos: ResolvedChaos): CallContext {
  return capabilityOf<ChaosCapability>(chaos)!.withChaos(context, chaos) as CallContext;
}
