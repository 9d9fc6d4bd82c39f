import type { Readable } from 'node:stream';

/**
 * Keeping the bytes of a stream body as they are sent, up to a bound, so a retry can send them
 * again. The first attempt gets a stream that yields exactly what the source yields, when the
 * adapter asks for it: nothing is read ahead, nothing is buffered but what has been sent. Past the
 * bound the kept bytes are dropped (the first attempt goes on, unchanged) and the body is no longer
 * replayable. When an attempt fails before the source has ended, the rest is read (still within
 * the bound) before a retry.
 */
export interface Recording {
  /** What the first attempt sends. */
  readonly body: unknown;
  /** Reads the source to its end if the attempt did not; `false` when the bytes went past the bound or the source failed. */
  complete(): Promise<boolean>;
  /** A fresh body with the same bytes, for a retry. */
  replay(): unknown;
  /** The call ended: what the plugin still holds of the source is let go. */
  release(): void;
}

type ReadableClass = typeof Readable;

/**
 * Node's `Readable`, found without importing `node:stream` (the main entry is browser-safe): from
 * `process.getBuiltinModule` (Node 20.16+), else from the source's own prototype chain.
 */
function readableClass(source: object): ReadableClass {
  const builtin = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:stream') as { Readable?: ReadableClass } | undefined;
  if (builtin?.Readable !== undefined) return builtin.Readable;
  for (
    let proto = Object.getPrototypeOf(source) as object | null;
    proto !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    const ctor = (proto as { constructor?: ReadableClass }).constructor;
    if (ctor?.name === 'Readable' && typeof ctor.from === 'function') return ctor;
  }
  throw new TypeError('axios-resilience: cannot find Node.js Readable to record a stream body');
}

/** The kept bytes, up to the bound. */
class Kept {
  readonly chunks: Uint8Array[] = [];
  private size = 0;
  over = false;

  constructor(private readonly maxBytes: number) {}

  add(chunk: unknown): void {
    if (this.over) return;
    const bytes =
      typeof chunk === 'string'
        ? new TextEncoder().encode(chunk)
        : chunk instanceof Uint8Array
          ? chunk
          : new Uint8Array(chunk as ArrayBuffer);
    this.size += bytes.byteLength;
    if (this.size > this.maxBytes) {
      this.over = true;
      this.chunks.length = 0;
    } else {
      this.chunks.push(bytes);
    }
  }
}

/** A promise that settles when `done` says so, checked after every event that may end it. */
class Settled {
  private waiters: Array<() => void> = [];
  wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => (done() ? resolve() : void this.waiters.push(check));
      this.waiters.push(check);
    });
  }
}

/**
 * A Node Readable: the first attempt's stream pulls from the source in paused mode (`read()`), so
 * every byte the adapter got was kept first, and the rest can be read without it.
 */
class ReadableRecording implements Recording {
  readonly body: Readable;
  private readonly Readable: ReadableClass;
  private readonly kept: Kept;
  private readonly settled = new Settled();
  private ended = false;
  private failed = false;
  /** The adapter wants more. */
  private wanted = false;
  /** The attempt failed: the plugin reads the rest for itself. */
  private draining = false;

  constructor(
    private readonly source: Readable,
    maxBytes: number,
  ) {
    this.kept = new Kept(maxBytes);
    this.Readable = readableClass(source);
    this.body = new this.Readable({
      read: () => {
        this.wanted = true;
        this.pump();
      },
    });
    source.on('readable', () => this.pump());
    source.once('end', () => {
      this.ended = true;
      if (!this.draining) this.body.push(null);
      this.settled.wake();
    });
    source.once('error', (error) => {
      this.failed = true;
      this.body.destroy(error);
      this.settled.wake();
    });
  }

  private pump(): void {
    while ((this.wanted || this.draining) && !(this.draining && this.kept.over)) {
      const chunk: unknown = this.source.read();
      if (chunk === null) return;
      this.kept.add(chunk);
      if (!this.draining) this.wanted = this.body.push(chunk);
    }
    this.settled.wake();
  }

  async complete(): Promise<boolean> {
    if (!this.ended && !this.failed && !this.kept.over) {
      this.draining = true;
      this.pump();
      await this.settled.until(() => this.ended || this.failed || this.kept.over);
    }
    return this.ended && !this.failed && !this.kept.over;
  }

  replay(): Readable {
    return this.Readable.from(this.kept.chunks, { objectMode: false });
  }

  release(): void {
    // Plain axios leaves a source it did not finish as it is (unpiped, paused); so does the plugin.
  }
}

/**
 * A stream of the old kind (the `form-data` package's object, a CombinedStream): it emits `data`
 * only while the adapter pipes it, so listening changes nothing, and the object itself goes to
 * axios (which reads its headers and length from it, as it would without the plugin).
 */
class LegacyRecording implements Recording {
  private readonly kept: Kept;
  private readonly settled = new Settled();
  private ended = false;
  private failed = false;

  constructor(
    readonly body: NodeJS.ReadableStream,
    maxBytes: number,
  ) {
    this.kept = new Kept(maxBytes);
    body.on('data', (chunk: unknown) => {
      this.kept.add(chunk);
      if (this.kept.over) this.settled.wake();
    });
    body.once('end', () => {
      this.ended = true;
      this.settled.wake();
    });
    body.once('error', () => {
      this.failed = true;
      this.settled.wake();
    });
  }

  async complete(): Promise<boolean> {
    if (!this.ended && !this.failed && !this.kept.over) {
      this.body.resume();
      await this.settled.until(() => this.ended || this.failed || this.kept.over);
      if (this.kept.over) this.body.pause();
    }
    return this.ended && !this.failed && !this.kept.over;
  }

  replay(): Readable {
    return readableClass(this.body).from(this.kept.chunks, { objectMode: false });
  }

  release(): void {}
}

/** A web ReadableStream (the fetch adapter): the plugin holds the source's reader, and fetch reads through it. */
class WebRecording implements Recording {
  readonly body: ReadableStream<Uint8Array>;
  private readonly kept: Kept;
  private readonly reader: ReadableStreamDefaultReader<unknown>;
  private ended = false;
  private failed = false;

  constructor(source: ReadableStream<unknown>, maxBytes: number) {
    this.kept = new Kept(maxBytes);
    this.reader = source.getReader();
    this.body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const next = await this.readOne();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
      // fetch cancels the body of a failed request; the source stays, for the retry.
      cancel: () => undefined,
    });
  }

  private async readOne(): Promise<Uint8Array | undefined> {
    try {
      const { done, value } = await this.reader.read();
      if (done) {
        this.ended = true;
        return undefined;
      }
      this.kept.add(value);
      return value as Uint8Array;
    } catch (error) {
      this.failed = true;
      throw error;
    }
  }

  async complete(): Promise<boolean> {
    try {
      while (!this.ended && !this.kept.over) await this.readOne();
    } catch {
      return false;
    }
    return this.ended && !this.failed && !this.kept.over;
  }

  replay(): ReadableStream<Uint8Array> {
    const chunks = this.kept.chunks;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
  }

  release(): void {
    if (!this.ended) this.reader.cancel().catch(() => undefined);
  }
}

/** The recording for a stream body (`isStream` said it is one). */
export function recorderFor(data: unknown, maxBytes: number): Recording {
  if (typeof ReadableStream !== 'undefined' && data instanceof ReadableStream) return new WebRecording(data, maxBytes);
  const stream = data as Readable;
  if (typeof stream.read === 'function' && typeof stream.readableFlowing !== 'undefined') {
    return new ReadableRecording(stream, maxBytes);
  }
  return new LegacyRecording(data as NodeJS.ReadableStream, maxBytes);
}
