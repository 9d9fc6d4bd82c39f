import type { Readable } from 'node:stream';
import { Kept } from './recorded-bytes';
import type { Recording } from './recorded-bytes';

/** Recording a Node stream body (see `recorded-bytes.ts`); the browser build carries `browser/node-recording.ts` instead. */

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

/** The recording of a Node stream: a Readable, or a stream of the old kind (`form-data`). */
export function nodeRecorder(data: unknown, maxBytes: number): Recording {
  const stream = data as Readable;
  if (typeof stream.read === 'function' && typeof stream.readableFlowing !== 'undefined') {
    return new ReadableRecording(stream, maxBytes);
  }
  return new LegacyRecording(data as NodeJS.ReadableStream, maxBytes);
}
