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

/** The kept bytes, up to the bound. */
export class Kept {
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
