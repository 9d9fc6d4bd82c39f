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
    ['http.client.request.start', (m) => this.clientStarted(clientOf(m))],
    ['http.client.response.finish', (m) => this.clientEnded(clientOf(m))],
    ['http.client.request.error', (m) => this.clientEnded(clientOf(m))],
    ['undici:request:create', (m) => this.fetchStarted(fetchOf(m))],
    ['undici:request:headers', (m) => this.fetchEnded(fetchOf(m))],
    ['undici:request:error', (m) => this.fetchEnded(fetchOf(m))],
    ['http.server.request.start', (m) => this.serverStarted(m as ServerMessage)],
    ['http.server.response.finish', (m) => this.serverEnded((m as ServerMessage).socket)],
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

  private clientStarted(request: ClientRequest): void {
    this.clients.add(request);
    // An abort, a destroyed socket or nock's error path may end a request without an answer event.
    request.once('close', () => this.clientEnded(request));
    this.events++;
  }

  private clientEnded(request: ClientRequest): void {
    if (this.clients.delete(request)) this.events++;
  }

  private fetchStarted(request: UndiciRequest): void {
    this.fetches.add(request);
    this.events++;
  }

  private fetchEnded(request: UndiciRequest): void {
    if (this.fetches.delete(request)) this.events++;
  }

  private serverStarted({ socket, response }: ServerMessage): void {
    this.served.add(socket);
    response.once('close', () => this.serverEnded(socket));
    this.events++;
  }

  private serverEnded(socket: Socket): void {
    if (this.served.delete(socket)) this.events++;
  }
}

const clientOf = (message: unknown): ClientRequest => (message as { request: ClientRequest }).request;
const fetchOf = (message: unknown): UndiciRequest => (message as { request: UndiciRequest }).request;

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
