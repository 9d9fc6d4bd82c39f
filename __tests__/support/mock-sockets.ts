import diagnosticsChannel from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

/**
 * Frees what @mswjs/interceptors 0.41 (the request interception under both nock 14 and msw 2)
 * leaves behind when a mocked request fails with a network error: nock's `replyWithError`, a nock
 * reply callback that passes an error, msw's `HttpResponse.error()`.
 *
 * Its mock socket parses the outgoing request with a Node HTTP parser that it frees only on the
 * socket's 'finish' event. A socket destroyed with an error never emits 'finish', so that parser
 * is never freed: an async resource of type HTTPINCOMINGMESSAGE that is never destroyed, which
 * jest's --detectOpenHandles reports after the run (it holds no handle, so the process still
 * exits). Interceptors 0.45 frees both parsers when the socket closes, but nock 14 and msw 2.15
 * ask for ^0.41.
 *
 * A test file that opts in frees that one parser of each mock socket that closes destroyed before
 * it finished. Nothing else is touched, so --detectOpenHandles still reports every other leak.
 */
export function releaseMockSocketParsers(): void {
  const onRequestStart = (message: unknown): void => {
    const { request } = message as { request: ClientRequest };
    request.once('close', () => freeRequestParser(request.socket));
  };
  beforeAll(() => diagnosticsChannel.subscribe('http.client.request.start', onRequestStart));
  afterAll(() => diagnosticsChannel.unsubscribe('http.client.request.start', onRequestStart));
}

interface MockSocketInternals {
  destroyed: boolean;
  writableFinished: boolean;
  requestParser?: { free?: () => void };
}

function freeRequestParser(socket: unknown): void {
  const mock = socket as MockSocketInternals | null;
  // A real socket has no requestParser; a mock socket that finished has freed its own.
  if (mock?.destroyed && !mock.writableFinished) mock.requestParser?.free?.();
}
