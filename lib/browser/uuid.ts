/**
 * The browser build's stand-in for the `uuid` package (which the default key generator calls only
 * where Web Crypto has no `randomUUID`: outside a secure context, or an old browser): a uuid v4
 * from `crypto.getRandomValues`, which every browser has, secure context or not.
 */
const HEX = Array.from({ length: 256 }, (_, i) => (i + 256).toString(16).slice(1));

export function v4(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // the RFC 9562 variant
  let text = '';
  for (let i = 0; i < 16; i++) text += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[b[i]!];
  return text;
}
