/**
 * The browser build's `policy/chaos-options.ts` and `engine/chaos.ts`: the plugin's `chaos` is
 * resolved by the fault injection code it carries (`chaos()` from `axios-resilience/chaos`), which
 * stays on the resolved setting and wraps a call's adapter; a plain object is a `TypeError` that
 * names the import. A request can turn chaos off (`retry: { chaos: false }`) without it.
 */
import type * as Chaos from '../engine/chaos';
import { chaosSetting } from '../policy/chaos-per-request';
import type { ChaosSetting, ResolvedChaos } from '../policy/chaos-options';
import { capabilityOf, notCarried, withCapability } from './capability';

export type { ChaosSetting, ResolvedChaos };

/** What `axios-resilience/chaos` attaches: the real resolution and the adapter wrapper. */
export interface ChaosCapability {
  resolve(where: string, value: unknown, base: false | ResolvedChaos | undefined): false | ResolvedChaos;
  withChaos: typeof Chaos.withChaos;
}

export function resolveChaos(
  where: string,
  value: unknown,
  base: false | ResolvedChaos | undefined,
): false | ResolvedChaos {
  return chaosSetting(where, value, base, (plugin) => {
    const code = capabilityOf<ChaosCapability>(plugin);
    if (code === undefined) notCarried(where, 'chaos', 'chaos', 'axios-resilience/chaos');
    const resolved = code.resolve(where, plugin, undefined);
    return resolved === false ? false : withCapability(resolved, code);
  });
}

export const withChaos: typeof Chaos.withChaos = (...args) =>
  capabilityOf<ChaosCapability>(args[1])!.withChaos(...args);
