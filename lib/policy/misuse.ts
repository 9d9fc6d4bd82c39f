import { fail } from './validate';

/**
 * The `TypeError`s for a user's function that returned the wrong thing, and for an install that
 * cannot work. They go through `fail` as every option check does, so a browser app's production
 * bundle carries their codes (E65-E70 in docs/errors.md), not their words.
 */

/** What `delay()` chose: a number of ms >= 0, or `undefined` for the plugin's own wait. */
export function checkDelay(chosen: unknown): asserts chosen is number | undefined {
  if (chosen !== undefined && (typeof chosen !== 'number' || !(chosen >= 0))) fail('', 'delay()', 'E65', chosen);
}

/** `config.retry.body()` returned something that is not a request body. */
export function notABody(body: unknown): never {
  return fail('config.retry.', 'body()', 'E66', body);
}

/** A key a user's function chose (`breaker.key()`, `rateLimit.key()`): a non-empty string. */
export function checkedKey(name: string, chosen: unknown): string {
  if (typeof chosen !== 'string' || chosen === '') fail('', name, 'E67', chosen);
  return chosen;
}

/** `install()` was given something that is not axios. */
export function notAxios(instance: unknown): never {
  return fail('', 'install()', 'E68', instance);
}

/** `install()` after `close()`: it would do nothing, silently. */
export function installClosed(): never {
  return fail('', 'install()', 'E69');
}

/** A second plugin on one instance: the two would retry each other's retries. */
export function installedTwice(): never {
  return fail('', 'this axios instance', 'E70');
}
