import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import Redis from 'ioredis';

/** A free TCP port on 127.0.0.1 (bound, read and released). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether a Redis on `port` answers PING (over a plain socket, so no client state is involved). */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export interface RedisServer {
  port: number;
  kill(): Promise<void>;
}

/** Starts a throwaway redis-server (no persistence) on `port` and waits until it answers. */
export async function startRedis(port?: number): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_resolve, reject) => {
    child.once('error', (error) => reject(new Error(`cannot start redis-server (is it installed?): ${error.message}`)));
  });
  const deadline = Date.now() + 5000;
  while (!(await Promise.race([pong(chosen), failed]))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${chosen} did not answer within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port: chosen,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** The Redis CI started (REDIS_PORT), or a throwaway one for a local run. */
export async function sharedRedis(): Promise<{ port: number; stop: () => Promise<void> }> {
  const fromCi = Number(process.env.REDIS_PORT);
  if (Number.isInteger(fromCi) && fromCi > 0) return { port: fromCi, stop: async () => undefined };
  const server = await startRedis();
  return { port: server.port, stop: server.kill };
}

/** An ioredis client tuned for tests: fails fast while disconnected, reconnects quickly. */
export function connect(port: number): Redis {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => 100,
  });
  client.on('error', () => undefined);
  return client;
}

export async function ready(client: Redis): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
}
