import { Redis } from 'ioredis';
import type { Cluster } from 'ioredis';
import { RetryBudget } from '../../lib';
import type { StoreEvent } from '../../lib';
import { redisBudgetStore } from '../../lib/redis';
import type { RedisClient } from '../../lib/redis';
import { connect, ready, sharedCluster, startCluster } from './redis';

// A Redis Cluster keeps the budget's hash on one master, while ioredis sends a SCRIPT LOAD to any
// master: these tests pin that every script call finds its script on the node that runs it.

const prefix = () => `cluster:${process.pid}:${Math.random().toString(36).slice(2)}:`;

const RATIO = 0.1;
const FLOOR = 10; // minPerSecond 1 × window 10 s

/** A budget on the cluster that records every store event (a false "unreachable" is one). */
function sharedBudget(client: RedisClient, keyPrefix: string, events: StoreEvent[]): RetryBudget {
  return new RetryBudget({
    ratio: RATIO,
    minPerSecond: 1,
    windowMs: 10_000,
    // Generous, so a slow shared machine is not mistaken for an unreachable store.
    storeTimeoutMs: 2000,
    store: redisBudgetStore(client, { prefix: keyPrefix }),
    onStoreEvent: (event) => void events.push(event),
  });
}

/** Withdraws from the budgets in turn until both refuse; returns the retries granted. */
async function drain(budgets: RetryBudget[]): Promise<number> {
  let granted = 0;
  for (let round = 0; round < 100; round++) {
    const answers = await Promise.all(budgets.map((b) => b.tryWithdraw()));
    granted += answers.filter(Boolean).length;
    if (answers.every((a) => !a)) return granted;
  }
  throw new Error('the budget never ran out');
}

/** Runs SCRIPT FLUSH on every master: each forgets every script it had cached. */
async function flushScripts(client: Cluster): Promise<void> {
  await Promise.all(client.nodes('master').map((node) => node.script('FLUSH')));
}

describe('the shared budget on a Redis Cluster', () => {
  let ports: number[];
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ ports, stop } = await sharedCluster());
  }, 60_000);
  afterAll(async () => stop());

  test('twenty fresh budgets on a cluster each share their bucket, with no "store unreachable"', async () => {
    const client = connect({ cluster: ports }) as Cluster;
    await ready(client);
    const events: StoreEvent[] = [];
    try {
      // As on a cluster just started: no node has any script yet.
      await flushScripts(client);
      for (let i = 0; i < 20; i++) {
        const keyPrefix = prefix();
        const budget = sharedBudget(client, keyPrefix, events);
        expect(await budget.tryWithdraw()).toBe(true);
        expect(budget.state().mode).toBe('shared');
      }
      expect(events).toEqual([]);
    } finally {
      client.disconnect();
    }
  }, 30_000);

  test('after SCRIPT FLUSH on every node the budget stays shared: two processes draw one floor', async () => {
    const first = connect({ cluster: ports }) as Cluster;
    const second = connect({ cluster: ports }) as Cluster;
    await Promise.all([ready(first), ready(second)]);
    const events: StoreEvent[] = [];
    const keyPrefix = prefix();
    const budgets = [sharedBudget(first, keyPrefix, events), sharedBudget(second, keyPrefix, events)];
    try {
      // Every script runs once, so every node that owns the key has cached them; then all forget.
      for (let i = 0; i < 20; i++) budgets[i % 2]!.deposit();
      await Promise.all(budgets.map((b) => b.flush()));
      expect(await budgets[0]!.tryWithdraw()).toBe(true);
      budgets[0]!.refund();
      await flushScripts(first);

      for (let i = 0; i < 20; i++) budgets[i % 2]!.deposit();
      await Promise.all(budgets.map((b) => b.flush()));
      await flushScripts(first);
      // 40 first attempts across the fleet: 0.1 × 40 + one floor of 10, shared by both processes.
      expect(await drain(budgets)).toBe(RATIO * 40 + FLOOR);
      expect(events).toEqual([]);
      expect(budgets.map((b) => b.state().mode)).toEqual(['shared', 'shared']);
    } finally {
      first.disconnect();
      second.disconnect();
    }
  }, 30_000);
});

/** The port of the master that owns `key`'s slot, and of its replica if it has one. */
async function ownerOf(ports: number[], key: string): Promise<{ master: number; replica: number | undefined }> {
  const probe = new Redis({ port: ports[0]!, host: '127.0.0.1', lazyConnect: true });
  await probe.connect();
  try {
    const slot = Number(await probe.cluster('KEYSLOT', key));
    const ranges = await probe.cluster('SLOTS');
    const nodes = ranges.find(([from, to]) => slot >= from && slot <= to)!;
    return { master: nodes[2]![1], replica: nodes[3]?.[1] };
  } finally {
    probe.disconnect();
  }
}

describe('a cluster node restarts or fails over', () => {
  test('the master that holds the budget comes back empty, and the budget is shared again at once', async () => {
    const cluster = await startCluster();
    const client = connect({ cluster: cluster.ports }) as Cluster;
    const other = connect({ cluster: cluster.ports }) as Cluster;
    try {
      await Promise.all([ready(client), ready(other)]);
      const keyPrefix = prefix();
      const before: StoreEvent[] = [];
      const warm = sharedBudget(client, keyPrefix, before);
      expect(await warm.tryWithdraw()).toBe(true);

      // The master owning the budget's hash forgets its data and its scripts.
      const key = `${keyPrefix}budget`;
      await cluster.restart((await ownerOf(cluster.ports, key)).master);
      // Both clients reach the restarted node again before the budget is judged.
      await Promise.all([client, other].map((c) => waitFor(() => c.get(key).then(() => true))));

      const events: StoreEvent[] = [];
      const budgets = [sharedBudget(client, keyPrefix, events), sharedBudget(other, keyPrefix, events)];
      for (let i = 0; i < 30; i++) budgets[i % 2]!.deposit();
      await Promise.all(budgets.map((b) => b.flush()));
      expect(await drain(budgets)).toBe(RATIO * 30 + FLOOR);
      expect(events).toEqual([]);
    } finally {
      client.disconnect();
      other.disconnect();
      await cluster.stop();
    }
  }, 60_000);
});

describe('a cluster fails over', () => {
  test("the budget's master hands over to its replica (CLUSTER FAILOVER): the budget stays shared, no event", async () => {
    const cluster = await startCluster(1);
    const client = connect({ cluster: cluster.ports }) as Cluster;
    const other = connect({ cluster: cluster.ports }) as Cluster;
    try {
      await Promise.all([ready(client), ready(other)]);
      const keyPrefix = prefix();
      const events: StoreEvent[] = [];
      const budgets = [sharedBudget(client, keyPrefix, events), sharedBudget(other, keyPrefix, events)];
      for (let i = 0; i < 30; i++) budgets[i % 2]!.deposit();
      await Promise.all(budgets.map((b) => b.flush()));
      expect(await budgets[0]!.tryWithdraw()).toBe(true);

      // A replica shows in CLUSTER SLOTS once it has attached to its master.
      await waitFor(async () => (await ownerOf(cluster.ports, `${keyPrefix}budget`)).replica !== undefined);
      const { master, replica } = await ownerOf(cluster.ports, `${keyPrefix}budget`);
      const promoted = new Redis({ port: replica!, host: '127.0.0.1', lazyConnect: true });
      await promoted.connect();
      // A manual failover: the replica catches up with its master, then takes its slots over.
      await promoted.cluster('FAILOVER');
      await waitFor(async () => (await ownerOf(cluster.ports, `${keyPrefix}budget`)).master === replica);
      promoted.disconnect();
      expect(replica).not.toBe(master);

      // 30 first attempts, one retry granted before: 0.1 × 30 + 10 = 13 in all, one bucket on the new master.
      expect(1 + (await drain(budgets))).toBe(RATIO * 30 + FLOOR);
      expect(events).toEqual([]);
    } finally {
      client.disconnect();
      other.disconnect();
      await cluster.stop();
    }
  }, 60_000);
});

/** Retries `check` every 100 ms until it resolves true (at most 10 s). */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
