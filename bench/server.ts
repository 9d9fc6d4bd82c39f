/**
 * The benchmarks' HTTP server, run in a child process so its CPU is not the client's. It listens on
 * 127.0.0.1 at a random port and tells the parent the port over IPC.
 *
 * Messages from the parent:
 * - `{ type: 'outage', startAt, endAt }` (epoch ms; both processes share the clock): answer 503
 *   from `startAt` until `endAt`, 200 afterwards, and count what arrives in each phase.
 * - `{ type: 'stats' }`: reply with the counts and reset them.
 */
import { createServer } from 'node:http';

interface Outage {
  startAt: number;
  endAt: number;
}

type Message = { type: 'outage'; startAt: number; endAt: number } | { type: 'stats' };

let outage: Outage | undefined;
let total = 0;
let duringOutage = 0;
let afterOutage = 0;
let firstOkAt: number | undefined;

const body = Buffer.from('{"ok":true}');

const server = createServer((req, res) => {
  total++;
  // POST bodies are read in full, as a real server would, before answering.
  req.resume();
  req.on('end', () => {
    const now = Date.now();
    if (outage !== undefined && now < outage.endAt) {
      if (now >= outage.startAt) duringOutage++;
      res.writeHead(503, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
      return;
    }
    if (outage !== undefined) {
      afterOutage++;
      firstOkAt ??= now;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.send?.({ type: 'ready', port: address.port });
});

process.on('message', (message: Message) => {
  if (message.type === 'outage') {
    outage = { startAt: message.startAt, endAt: message.endAt };
    total = duringOutage = afterOutage = 0;
    firstOkAt = undefined;
  } else if (message.type === 'stats') {
    process.send?.({ type: 'stats', total, duringOutage, afterOutage, firstOkAt });
    total = duringOutage = afterOutage = 0;
    firstOkAt = undefined;
  }
});

// The parent going away (or closing the IPC channel) ends the server.
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
