/**
 * A TCP proxy on 127.0.0.1 that delays every chunk by a fixed time, each way, keeping their order:
 * a Redis that answers `2 × delayMs` later than it would (a far region, a busy host), without
 * touching Redis itself. Used by `bench/ratelimit.ts --redis-delay-ms` and the fleet tests.
 *
 *   const proxy = await delayProxy(6379, 100); // Redis on 6379, answers 200 ms late, on proxy.port
 *   proxy.setDelay(0); proxy.cut(); await proxy.close();
 */
import net from 'node:net';

export interface DelayProxy {
  port: number;
  /** The delay each way from now on (ms). */
  setDelay(ms: number): void;
  /** Drops every connection through it (a Redis that went away); new ones are accepted. */
  cut(): void;
  close(): Promise<void>;
}

export async function delayProxy(targetPort: number, delayMs: number): Promise<DelayProxy> {
  let delay = delayMs;
  const sockets = new Set<net.Socket>();
  /** Writes `chunk` to `to` after the delay; a chunk never overtakes the one before it. */
  const relay = (from: net.Socket, to: net.Socket): void => {
    let lastAt = 0;
    from.on('data', (chunk) => {
      const at = Math.max(Date.now() + delay, lastAt);
      lastAt = at;
      const timer = setTimeout(() => !to.destroyed && to.write(chunk), at - Date.now());
      timer.unref();
    });
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const cut = (): void => {
    for (const s of sockets) s.destroy();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    setDelay: (ms) => void (delay = ms),
    cut,
    close: () =>
      new Promise<void>((done) => {
        cut();
        server.close(() => done());
      }),
  };
}
