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

/** A Node source, read by its events: `drain` reads what the attempt left, and `complete` waits for the event that stops it. */
abstract class NodeRecording implements Recording {
  abstract readonly body: Readable | NodeJS.ReadableStream;
  protected readonly kept: Kept;
  protected ended = false;
  protected failed = false;
  private waiters: Array<() => void> = [];

  constructor(maxBytes: number) {
    this.kept = new Kept(maxBytes);
  }

  protected get stopped(): boolean {
    return this.ended || this.failed || this.kept.over;
  }

  /** Called after every event that may stop the reading. */
  protected wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Reads what the attempt left of the source; settles when the reading stops. */
  protected abstract drain(): Promise<void>;

  async complete(): Promise<boolean> {
    if (!this.stopped) await this.drain();
    return this.ended && !this.failed && !this.kept.over;
  }

  protected untilStopped(): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => (this.stopped ? resolve() : void this.waiters.push(check));
      check();
    });
  }

  replay(): Readable {
    return readableClass(this.body).from(this.kept.chunks, { objectMode: false });
  }

  release(): void {}
}

/**
 * A Node Readable: the first attempt's stream pulls from the source in paused mode (`read()`), so
 * every byte the adapter got was kept first, and the rest can be read without it. A source the
 * attempt did not finish is left as plain axios leaves it (unpiped, paused).
 */
class ReadableRecording extends NodeRecording {
  readonly body: Readable;
  /** The adapter wants more. */
  private wanted = false;
  /** The attempt failed: the plugin reads the rest for itself. */
  private draining = false;

  constructor(
    private readonly source: Readable,
    maxBytes: number,
  ) {
    super(maxBytes);
    this.body = new (readableClass(source))({
      read: () => {
        this.wanted = true;
        this.pump();
      },
    });
    source.on('readable', () => this.pump());
    source.once('end', () => {
      this.ended = true;
      if (!this.draining) this.body.push(null);
      this.wake();
    });
    source.once('error', (error) => {
      this.failed = true;
      this.body.destroy(error);
      this.wake();
    });
  }

  private pump(): void {
    while ((this.wanted || this.draining) && !(this.draining && this.kept.over)) {
      const chunk: unknown = this.source.read();
      if (chunk === null) return;
      this.kept.add(chunk);
      if (!this.draining) this.wanted = this.body.push(chunk);
    }
    this.wake();
  }

  protected drain(): Promise<void> {
    this.draining = true;
    this.pump();
    return this.untilStopped();
  }
}

/**
 * A stream of the old kind (the `form-data` package's object, a CombinedStream): it emits `data`
 * only while the adapter pipes it, so listening changes nothing, and the object itself goes to
 * axios (which reads its headers and length from it, as it would without the plugin).
 */
class LegacyRecording extends NodeRecording {
  constructor(
    readonly body: NodeJS.ReadableStream,
    maxBytes: number,
  ) {
    super(maxBytes);
    body.on('data', (chunk: unknown) => {
      this.kept.add(chunk);
      if (this.kept.over) this.wake();
    });
    body.once('end', () => {
      this.ended = true;
      this.wake();
    });
    body.once('error', () => {
      this.failed = true;
      this.wake();
    });
  }

  protected async drain(): Promise<void> {
    this.body.resume();
    await this.untilStopped();
    if (this.kept.over) this.body.pause();
  }
}

/** The recording of a Node stream: a Readable, or a stream of the old kind (`form-data`). */
export function nodeRecorder(data: unknown, maxBytes: number): Recording {
  const stream = data as Readable;
  if (typeof stream.read === 'function' && typeof stream.readableFlowing !== 'undefined') {
    return new ReadableRecording(stream, maxBytes);
  }
  return new LegacyRecording(data as NodeJS.ReadableStream, maxBytes);
}
