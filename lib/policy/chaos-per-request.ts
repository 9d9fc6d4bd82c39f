import { fail } from './validate';

/**
 * A call's `chaos`, the part both builds share (the browser's carries no fault-injection code of
 * its own): a request's `retry.chaos` over the plugin's (`base`) keeps it when absent, turns it off
 * with `false` and allows nothing else (faults are set on the plugin); the plugin's own (`base`
 * undefined) is none when absent, else what `plugin` makes of it.
 */
export function chaosSetting<T>(
  where: string,
  value: unknown,
  base: false | T | undefined,
  plugin: (value: unknown) => false | T,
): false | T {
  if (base === undefined) return value === undefined ? false : plugin(value);
  if (value === undefined) return base;
  if (value !== false) fail(where, 'chaos', 'E46', value);
  return false;
}
