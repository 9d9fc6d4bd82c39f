/**
 * The request header that names a call, the same on its retries, so the server can tell calls apart.
 * A module of its own: bench/server.ts starts a server when it is loaded, so nothing imports from it.
 */
export const CALL_ID = 'x-call-id';
