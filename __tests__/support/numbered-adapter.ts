import axios from 'axios';
import type { AxiosAdapter } from 'axios';

/** The header a numbered adapter sets: the copy's place in the order the plugin handed copies to it. */
export const COPY_HEADER = 'x-test-copy';

/**
 * axios's `http` or `fetch` adapter, wrapped to number every request it is handed, in the order the
 * plugin hands them over (0, 1, 2, ...), in the `x-test-copy` header. A server that answers by that
 * number answers a hedged call's first copy and its hedge as the test means, whichever socket
 * reaches it first: on a loaded machine the hedge, sent later, can arrive before the first copy.
 */
export function numberedAdapter(name: 'http' | 'fetch'): AxiosAdapter {
  const send = axios.getAdapter(name);
  let next = 0;
  return (config) => {
    config.headers.set(COPY_HEADER, String(next++));
    return send(config);
  };
}

/** The number a numbered adapter gave a request, from the headers the server received. */
export function copyOf(headers: Record<string, string | string[] | undefined>): number {
  const value = headers[COPY_HEADER];
  if (typeof value !== 'string') throw new Error(`the request carries no ${COPY_HEADER} header`);
  return Number(value);
}
