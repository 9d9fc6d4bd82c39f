import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The HTTP requests of this process that wait for an answer, seen through Node's diagnostics
 * channels: `node:http` clients (axios's http adapter, nock's intercepted requests), undici
 * (`fetch`, axios's fetch adapter), and `node:http` servers in this process. A request whose server
 * is here and has it is not waiting for the network: if the server does not answer, it waits for
 * something in this process, such as a fake timer.
 */
export class RequestsInFlight {
  /** Bumped by every request event: a change means real I/O made progress (as does a change of `bytes`). */
  events = 0;
  private readonly clients = new Set<ClientRequest>();
  private readonly fetches = new Set<UndiciRequest>();
  private readonly served = new Set<Socket>();
  private readonly listeners: Array<[string, (message: unknown) => void]> = [
    // A client request also ends when it closes: an abort, a destroyed socket or nock's error path
    // may end it without an answer event.
    ['http.client.request.start', (m) => this.begin(this.clients, clientOf(m), clientOf(m))],
    ['http.client.response.finish', (m) => this.end(this.clients, clientOf(m))],
    ['http.client.request.error', (m) => this.end(this.clients, clientOf(m))],
    ['undici:request:create', (m) => this.begin(this.fetches, fetchOf(m))],
    ['undici:request:headers', (m) => this.end(this.fetches, fetchOf(m))],
    ['undici:request:error', (m) => this.end(this.fetches, fetchOf(m))],
    ['http.server.request.start', (m) => this.begin(this.served, servedOf(m).socket, servedOf(m).response)],
    ['http.server.response.finish', (m) => this.end(this.served, servedOf(m).socket)],
  ];

  constructor() {
    for (const [channel, listener] of this.listeners) subscribe(channel, listener);
  }

  stop(): void {
    for (const [channel, listener] of this.listeners) unsubscribe(channel, listener);
    this.clients.clear();
    this.fetches.clear();
    this.served.clear();
  }

  /** Bytes read and written so far on the sockets of the requests waiting and of the servers holding them. */
  get bytes(): number {
    let total = 0;
    for (const request of this.clients) total += bytesOf(request.socket);
    for (const socket of this.served) total += bytesOf(socket);
    return total;
  }

  /** How many requests wait for an answer. */
  get size(): number {
    return this.clients.size + this.fetches.size;
  }

  /** Whether a request waits for an answer that no server in this process holds (a remote one, or nock's). */
  get awaitingElsewhere(): boolean {
    if (this.fetches.size > 0) return true;
    for (const request of this.clients) if (!this.heldHere(request)) return true;
    return false;
  }

  /** `GET http://127.0.0.1:4321/v1/items`, for each request still waiting. */
  describe(): string[] {
    const clients = [...this.clients].map((r) => `${r.method} ${r.protocol}//${hostOf(r)}${r.path}`);
    const fetches = [...this.fetches].map((r) => `${r.method ?? ''} ${r.origin ?? ''}${r.path ?? ''}`.trim());
    return [...clients, ...fetches];
  }

  private heldHere(request: ClientRequest): boolean {
    const port = request.socket?.localPort;
    if (port === undefined) return false;
    for (const socket of this.served) if (socket.remotePort === port) return true;
    return false;
  }

  /** Counts `item` as waiting until its end event, or until `closes` closes, whichever comes first. */
  private begin<T>(waiting: Set<T>, item: T, closes?: Closable): void {
    waiting.add(item);
    closes?.once('close', () => this.end(waiting, item));
    this.events++;
  }

  private end<T>(waiting: Set<T>, item: T): void {
    if (waiting.delete(item)) this.events++;
  }
}

const clientOf = (message: unknown): ClientRequest => (message as { request: ClientRequest }).request;
const fetchOf = (message: unknown): UndiciRequest => (message as { request: UndiciRequest }).request;
const servedOf = (message: unknown): ServerMessage => message as ServerMessage;

/** A socket's traffic so far; a mock socket (nock's) may count none. */
function bytesOf(socket: Socket | null | undefined): number {
  return (Number(socket?.bytesRead) || 0) + (Number(socket?.bytesWritten) || 0);
}

/** The Host header (with the port when it is not the default), else the host name. */
function hostOf(request: ClientRequest): string {
  const header = request.getHeader('host');
  return typeof header === 'string' ? header : request.host;
}

interface UndiciRequest {
  method?: string;
  origin?: string;
  path?: string;
}

interface ServerMessage {
  request: IncomingMessage;
  response: ServerResponse;
  socket: Socket;
}

interface Closable {
  once(event: 'close', listener: () => void): unknown;
}
