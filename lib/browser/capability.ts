/**
 * How the browser build finds code it does not carry by default (hedging, fault injection): the
 * option value brings it. `hedging({ delayMs: 'p95' })` from `axios-resilience/hedging` returns
 * the options with the implementation under a symbol key (`Symbol.for`, so every copy of the
 * package agrees on it); option resolution keeps it on the resolved setting, and the engine's
 * browser stubs (`browser/hedge.ts`, `browser/chaos.ts`) call through it. Nothing is registered
 * globally: an app pays for hedging only where it imports it.
 */
export const CAPABILITY: unique symbol = Symbol.for('axios-resilience.capability') as never;

/** `value` with `implementation` attached (a copy: the caller's object is not changed). */
export function withCapability<T extends object>(value: T, implementation: object): T {
  return { ...value, [CAPABILITY]: implementation };
}

/** The implementation an option value (or a resolved setting) carries, if any. */
export function capabilityOf<I>(value: unknown): I | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as { [CAPABILITY]?: I })[CAPABILITY];
}

/**
 * The `TypeError` for an option whose code the browser build leaves out, naming what to import:
 * e.g. `hedge needs axios-resilience/hedging in a browser build: import { hedging } from
 * 'axios-resilience/hedging' and pass hedge: hedging({ ... })`.
 */
export function notCarried(where: string, option: string, name: string, subpath: string, args = '{ ... }'): never {
  throw new TypeError(
    `axios-resilience: ${where}${option} needs ${subpath} in a browser build: ` +
      `import { ${name} } from '${subpath}' and pass ${option}: ${name}(${args})`,
  );
}

/**
 * A plugin option whose code only its subpath brings (`rateLimit`, `breaker`): none when not given or
 * `false`; else resolved by the code the value carries, which stays on the setting for the stand-ins
 * that run it, or a `TypeError` naming the import.
 */
export function resolveCarried<S extends object>(
  value: unknown,
  option: string,
  name: string,
  subpath: string,
): false | S {
  if (value === undefined || value === false) return false;
  const code = capabilityOf<{ resolve(value: unknown): false | S }>(value);
  if (code === undefined) notCarried('', option, name, subpath);
  const resolved = code.resolve(value);
  return resolved === false ? false : withCapability(resolved, code);
}
