import { Kept } from './recorded-bytes';
import type { Recording } from './recorded-bytes';
import { nodeRecorder } from './node-recording';

export type { Recording };

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
  return nodeRecorder(data, maxBytes);
}
