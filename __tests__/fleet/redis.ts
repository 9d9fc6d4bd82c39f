import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis, { Cluster } from 'ioredis';

/**
 * Where the fleet tests keep their shared state: one Redis (`{ port }`) or the masters of a Redis
 * Cluster (`{ cluster: ports }`). Plain JSON, so a worker process is handed it on its command line.
 */
export type RedisTarget = { port: number } | { cluster: number[] };

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

/**
 * Starts a throwaway redis-server (no persistence) on `port` and waits until it answers. `extra`:
 * more arguments (a cluster node's).
 */
export async function startRedis(port?: number, extra: string[] = []): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(chosen),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'no',
      ...extra,
    ],
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

/** Ports of the cluster CI started (`REDIS_CLUSTER_PORTS=p1,p2,p3`), if any. */
function clusterPortsFromEnv(): number[] | undefined {
  const ports = (process.env.REDIS_CLUSTER_PORTS ?? '').split(',').filter(Boolean).map(Number);
  return ports.length > 0 && ports.every((p) => Number.isInteger(p) && p > 0) ? ports : undefined;
}

/**
 * What the fleet suite runs against: the cluster CI started (REDIS_CLUSTER_PORTS), else the Redis
 * CI started (REDIS_PORT), else a throwaway Redis for a local run.
 */
export async function sharedRedis(): Promise<{ target: RedisTarget; stop: () => Promise<void> }> {
  const cluster = clusterPortsFromEnv();
  if (cluster !== undefined) return { target: { cluster }, stop: async () => undefined };
  const fromCi = Number(process.env.REDIS_PORT);
  if (Number.isInteger(fromCi) && fromCi > 0) return { target: { port: fromCi }, stop: async () => undefined };
  const server = await startRedis();
  return { target: { port: server.port }, stop: server.kill };
}

export interface RedisCluster {
  /** Every node's port, masters and replicas. */
  ports: number[];
  /** Stops one node (SIGKILL) and starts it again on its port with its cluster config: a restart. */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

const run = promisify(execFile);

/** Waits until every node says `cluster_state:ok`. */
export async function clusterOk(ports: number[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(
      ports.map((p) =>
        run('redis-cli', ['-p', String(p), 'cluster', 'info']).then(
          (r) => r.stdout,
          () => '',
        ),
      ),
    );
    if (states.every((s) => s.includes('cluster_state:ok'))) return;
    if (Date.now() > deadline) throw new Error(`cluster on ${ports.join(',')} not ok within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts a throwaway 3-master Redis Cluster (no persistence but each node's cluster config file)
 * and waits until it serves every slot. `replicas: 1` gives each master a replica (six nodes).
 */
export async function startCluster(replicas: 0 | 1 = 0): Promise<RedisCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'axios-resilience-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 3 * (1 + replicas); i++) ports.push(await freePort());
  const nodeArgs = (port: number) => [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    path.join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout',
    '2000',
    '--dir',
    dir,
  ];
  const servers = new Map<number, RedisServer>();
  for (const port of ports) servers.set(port, await startRedis(port, nodeArgs(port)));
  await run('redis-cli', [
    '--cluster',
    'create',
    ...ports.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    String(replicas),
    '--cluster-yes',
  ]);
  await clusterOk(ports);
  return {
    ports,
    async restart(port) {
      await servers.get(port)!.kill();
      servers.set(port, await startRedis(port, nodeArgs(port)));
      await clusterOk(ports);
    },
    async stop() {
      await Promise.all([...servers.values()].map((s) => s.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The cluster CI started (REDIS_CLUSTER_PORTS), or a throwaway one. */
export async function sharedCluster(): Promise<{ ports: number[]; stop: () => Promise<void> }> {
  const fromCi = clusterPortsFromEnv();
  if (fromCi !== undefined) return { ports: fromCi, stop: async () => undefined };
  const cluster = await startCluster();
  return { ports: cluster.ports, stop: () => cluster.stop() };
}

/** An ioredis client tuned for tests: fails fast while disconnected, reconnects quickly. */
export function connect(target: RedisTarget | number): Redis | Cluster {
  const resolved = typeof target === 'number' ? { port: target } : target;
  const redisOptions = { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 100 };
  const client =
    'cluster' in resolved
      ? new Cluster(
          resolved.cluster.map((port) => ({ host: '127.0.0.1', port })),
          { enableOfflineQueue: false, redisOptions, clusterRetryStrategy: () => 100 },
        )
      : new Redis({ port: resolved.port, host: '127.0.0.1', ...redisOptions });
  client.on('error', () => undefined);
  return client;
}

/**
 * How many connections are subscribed to `channel`: on a cluster each node counts only its own
 * subscribers, so the counts of every node are summed.
 */
export async function subscribers(client: Redis | Cluster, channel: string): Promise<number> {
  const nodes = client instanceof Cluster ? client.nodes('all') : [client];
  const counts = await Promise.all(
    nodes.map(async (node) => Number(((await node.pubsub('NUMSUB', channel)) as unknown[])[1])),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}

export async function ready(client: Redis | Cluster): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
}
