import { absoluteOrigin } from './origin';
import { fail, optionsObject, own } from './validate';

/** Which attempts a fault may be chosen for (`chaos.faults[i].match`), validated; `undefined`: any. */
export interface FaultMatch {
  origins: ReadonlySet<string> | undefined;
  /** Upper case. */
  methods: ReadonlySet<string> | undefined;
  path: string | RegExp | undefined;
}

const MATCH_FIELDS = new Set(['origin', 'method', 'path']);

/** A string or a non-empty list of strings, as a set of `normal` forms; `undefined` when not given. */
function names(
  field: string,
  value: unknown,
  normal: (text: string) => string | undefined,
  what: 'origin' | 'method',
): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  const list: unknown[] = Array.isArray(value) ? value : [value];
  const set = new Set<string>();
  for (const item of list) {
    const normalised = typeof item === 'string' ? normal(item) : undefined;
    if (normalised === undefined) fail('', field, 'E47', item, what);
    set.add(normalised);
  }
  if (set.size === 0) fail('', field, 'E48', what);
  return set;
}

export function matchOf(field: string, value: unknown): FaultMatch {
  if (value === undefined) return { origins: undefined, methods: undefined, path: undefined };
  const input = optionsObject('', field, value, MATCH_FIELDS, 'E49');
  const path = own(input, 'path');
  if (path !== undefined && !(path instanceof RegExp) && !(typeof path === 'string' && path.startsWith('/'))) {
    fail('', `${field}.path`, 'E50', path);
  }
  return {
    origins: names(`${field}.origin`, own(input, 'origin'), (text) => absoluteOrigin(text), 'origin'),
    methods: names(
      `${field}.method`,
      own(input, 'method'),
      (text) => (/^[A-Za-z]+$/.test(text) ? text.toUpperCase() : undefined),
      'method',
    ),
    path: path as string | RegExp | undefined,
  };
}
