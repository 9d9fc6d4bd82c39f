/**
 * The browser build's `policy/chaos-options.ts` and `engine/chaos.ts`: the plugin's `chaos` is
 * resolved by the fault injection code it carries (`chaos()` from `axios-resilience/chaos`), which
 * stays on the resolved setting and wraps a call's adapter; a plain object is a `TypeError` that
 * names the import. A request can turn chaos off (`retry: { chaos: false }`) without it.
 */
import type * as Chaos from '../engine/chaos';
import { chaosSetting } from '../policy/chaos-per-request';
import type * as Options from '../policy/chaos-options';
import type { ChaosSetting, ResolvedChaos } from '../policy/chaos-options';
import { capabilityOf, notCarried, withCapability } from './capability';

export type { ChaosSetting, ResolvedChaos };

/** What `axios-resilience/chaos` attaches: the real resolution and the adapter wrapper. */
export interface ChaosCapability {
  resolve: typeof Options.resolveChaos;
  withChaos: typeof Chaos.withChaos;
}

export const resolveChaos: typeof Options.resolveChaos = (where, value, base) =>
  chaosSetting(where, value, base, (plugin) => {
    const code = capabilityOf<ChaosCapability>(plugin);
    if (code === undefined) notCarried(where, 'chaos', 'chaos', 'axios-resilience/chaos');
    const resolved = code.resolve(where, plugin, undefined);
    return resolved === false ? false : withCapability(resolved, code);
  });

export const withChaos: typeof Chaos.withChaos = (...args) =>
  capabilityOf<ChaosCapability>(args[1])!.withChaos(...args);
