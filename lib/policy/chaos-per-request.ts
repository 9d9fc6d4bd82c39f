import { fail } from './validate';

/**
 * A request's `retry.chaos` over the plugin's (`base`): absent keeps it, `false` turns it off, and
 * nothing else is allowed (faults are set on the plugin). Shared by the Node resolution and the
 * browser build's, which carries no fault-injection code of its own.
 */
export function perRequestChaos<T>(where: string, value: unknown, base: T): T | false {
  if (value === undefined) return base;
  if (value !== false) fail(where, 'chaos', 'E46', value);
  return false;
}
