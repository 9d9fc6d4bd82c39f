/**
 * The few Redis commands fleet mode uses, as ioredis (^5) spells them. Typed structurally so this
 * package never imports ioredis: the caller passes in the client it already has.
 */
export interface RedisClient {
  /** ioredis connection state; `'ready'` when commands will be answered. */
  readonly status?: string;
  script(subcommand: 'LOAD', script: string): Promise<unknown>;
  evalsha(sha: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<unknown>;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  del(key: string): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  /** A second connection for subscribing (a subscribed connection can do nothing else). */
  duplicate(): RedisSubscriber;
}

export interface RedisSubscriber {
  readonly status?: string;
  subscribe(channel: string): Promise<unknown>;
  once(event: 'ready', listener: () => void): unknown;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/** Runs a Lua script by `EVALSHA`, loading it once (and again after a Redis restart forgets it). */
export class Script {
  private sha: Promise<string> | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly lua: string,
  ) {}

  async run(keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await this.client.evalsha(await this.load(), keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error)?.message).includes('NOSCRIPT')) {
        this.sha = undefined;
        throw error;
      }
      this.sha = undefined;
      return this.client.evalsha(await this.load(), keys.length, ...keys, ...args);
    }
  }

  private load(): Promise<string> {
    this.sha ??= this.client.script('LOAD', this.lua).then(String);
    return this.sha;
  }
}
