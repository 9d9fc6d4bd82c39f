/**
 * Reads a multipart/form-data body into its parts, so two bodies with different (random) boundaries
 * can be compared part by part: names, filenames, content types and bytes.
 */

export interface Part {
  name: string | undefined;
  filename: string | undefined;
  contentType: string | undefined;
  /** The part's bytes, base64 (so a failed comparison prints something readable). */
  bytes: string;
  size: number;
}

/** The boundary named by a Content-Type header, or `undefined` when it names none. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  return match === null ? undefined : (match[1] ?? match[2]);
}

/** The parts of `body`; throws when the body is not a well-formed multipart body with that boundary. */
export function parseMultipart(body: Buffer, boundary: string): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  if (at !== 0) throw new Error(`body does not start with its boundary --${boundary}`);
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    if (body.subarray(at, at + 2).toString() !== '\r\n') throw new Error('boundary not followed by CRLF');
    at += 2;
    const headerEnd = body.indexOf('\r\n\r\n', at);
    if (headerEnd < 0) throw new Error('part without a header block');
    const headers = new Map<string, string>();
    for (const line of body.subarray(at, headerEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next < 0) throw new Error('part without a closing boundary');
    const bytes = body.subarray(headerEnd + 4, next);
    const disposition = headers.get('content-disposition') ?? '';
    parts.push({
      name: /\bname="([^"]*)"/.exec(disposition)?.[1],
      filename: /\bfilename="([^"]*)"/.exec(disposition)?.[1],
      contentType: headers.get('content-type'),
      bytes: bytes.toString('base64'),
      size: bytes.length,
    });
    at = next + 2;
  }
}
