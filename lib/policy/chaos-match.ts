import { absoluteOrigin } from './origin';
import { checkKnown, fail, isPlainObject, own, shown } from './validate';

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
  allowed: string,
): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  const list: unknown[] = Array.isArray(value) ? value : [value];
  const set = new Set<string>();
  for (const item of list) {
    const normalised = typeof item === 'string' ? normal(item) : undefined;
    if (normalised === undefined)
      fail(
        '',
        field,
        'E47',
        process.env.NODE_ENV !== 'production' && `must be ${allowed} or a list of them, got ${shown(item)}`,
      );
    set.add(normalised);
  }
  if (set.size === 0)
    fail(
      '',
      field,
      'E48',
      process.env.NODE_ENV !== 'production' && `must be ${allowed} or a non-empty list of them, got an empty array`,
    );
  return set;
}

export function matchOf(field: string, value: unknown): FaultMatch {
  if (value === undefined) return { origins: undefined, methods: undefined, path: undefined };
  if (!isPlainObject(value))
    fail(
      '',
      field,
      'E49',
      process.env.NODE_ENV !== 'production' && `must be an object such as { method: 'POST' }, got ${shown(value)}`,
    );
  checkKnown(`${field}.`, value, MATCH_FIELDS);
  const path = own(value, 'path');
  if (path !== undefined && !(path instanceof RegExp) && !(typeof path === 'string' && path.startsWith('/'))) {
    fail(
      '',
      `${field}.path`,
      'E50',
      process.env.NODE_ENV !== 'production' && `must be a path starting with '/' or a RegExp, got ${shown(path)}`,
    );
  }
  return {
    origins: names(
      `${field}.origin`,
      own(value, 'origin'),
      (text) => absoluteOrigin(text),
      "an absolute origin ('https://api.example.com')",
    ),
    methods: names(
      `${field}.method`,
      own(value, 'method'),
      (text) => (/^[A-Za-z]+$/.test(text) ? text.toUpperCase() : undefined),
      "a method name ('POST')",
    ),
    path: path as string | RegExp | undefined,
  };
}
