/**
 * The browser build's `policy/chaos-options.ts`: the plugin's `chaos` is resolved by the fault
 * injection code it carries (`chaos()` from `axios-resilience/chaos`), which stays on the resolved
 * setting for `browser/chaos.ts`; a plain object is a `TypeError` that names the import. A request
 * can turn chaos off (`retry: { chaos: false }`) without it.
 */
import { perRequestChaos } from '../policy/chaos-per-request';
import type { ChaosSetting, ResolvedChaos } from '../policy/chaos-options';
import type { withChaos } from '../engine/chaos';
import { capabilityOf, notCarried, withCapability } from './capability';

export type { ChaosSetting, ResolvedChaos };

/** What `axios-resilience/chaos` attaches: the real resolution and the adapter wrapper. */
export interface ChaosCapability {
  resolve(where: string, value: unknown, base: false | ResolvedChaos | undefined): false | ResolvedChaos;
  withChaos: typeof withChaos;
}

export function resolveChaos(
  where: string,
  value: unknown,
  base: false | ResolvedChaos | undefined,
): false | ResolvedChaos {
  if (base !== undefined) return perRequestChaos(where, value, base);
  if (value === undefined) return false;
  const code = capabilityOf<ChaosCapability>(value);
  if (code === undefined) notCarried(where, 'chaos', 'chaos', 'axios-resilience/chaos');
  const resolved = code.resolve(where, value, undefined);
  return resolved === false ? false : withCapability(resolved, code);
}
