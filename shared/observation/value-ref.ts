/**
 * A typed value's reference (DESIGN §9 "URLs keep what routes", issue #35): what names a value typed
 * in a session without saying anything about it, so a URL that carries the value can say "the value
 * typed into that field" and the compiler can put that field's parameter there.
 *
 * It is HMAC-SHA-256 under the session's key (`CaptureConfig.hash_key`, which never leaves the
 * extension), of the value as the scrubber compares it (words joined by single spaces, lower case),
 * cut to 12 hex digits. Without the key it cannot be computed or reversed; all it tells the agent is
 * that two places held the same value. Synchronous on purpose: the privacy boundary masks a URL
 * synchronously, on every page of the session, each with only the key and the values.
 */

/** Hex digits a reference keeps (48 bits: no two values of a session meet by chance). */
export const VALUE_REF_LENGTH = 12;

/** What a value is compared as (the scrubber's rule: NFC, trimmed, whitespace runs as one space, any case). */
export function canonicalValue(value: string): string {
  return value
    .normalize("NFC")
    .trim()
    .split(/[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+/)
    .filter(Boolean)
    .join(" ")
    .toLowerCase();
}

/** The value's reference under the session key; undefined for an empty value. */
export function valueRef(key: string, value: string): string | undefined {
  const canonical = canonicalValue(value);
  if (canonical === "") return undefined;
  return toHex(hmacSha256(UTF8.encode(`elnor-value-ref:${key}`), UTF8.encode(canonical))).slice(0, VALUE_REF_LENGTH);
}

/** A reference-maker bound to one key, remembering what it computed (a page asks for the same few values again and again). */
export function createValueRefs(key: string): (value: string) => string | undefined {
  const known = new Map<string, string | undefined>();
  return (value) => {
    if (known.has(value)) return known.get(value);
    const ref = valueRef(key, value);
    if (known.size >= 1000) known.clear();
    known.set(value, ref);
    return ref;
  };
}

const UTF8 = new TextEncoder();

function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += (byte < 16 ? "0" : "") + byte.toString(16);
  return hex;
}

/** HMAC (RFC 2104) over SHA-256. */
export function hmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array {
  const block = 64;
  let k = key.length > block ? sha256(key) : key;
  const padded = new Uint8Array(block);
  padded.set(k);
  k = padded;
  const inner = new Uint8Array(block + message.length);
  const outer = new Uint8Array(block + 32);
  for (let index = 0; index < block; index += 1) {
    inner[index] = (k[index] as number) ^ 0x36;
    outer[index] = (k[index] as number) ^ 0x5c;
  }
  inner.set(message, block);
  outer.set(sha256(inner), block);
  return sha256(outer);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 (FIPS 180-4). */
export function sha256(message: Uint8Array): Uint8Array {
  const length = message.length;
  const total = Math.ceil((length + 9) / 64) * 64;
  const data = new Uint8Array(total);
  data.set(message);
  data[length] = 0x80;
  const view = new DataView(data.buffer);
  view.setUint32(total - 8, Math.floor(length / 0x20000000), false);
  view.setUint32(total - 4, (length * 8) >>> 0, false);
  const hash = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < total; offset += 64) {
    for (let t = 0; t < 16; t += 1) w[t] = view.getUint32(offset + t * 4, false);
    for (let t = 16; t < 64; t += 1) {
      const w15 = w[t - 15] as number;
      const w2 = w[t - 2] as number;
      const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
      const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
      w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = hash as unknown as [number, number, number, number, number, number, number, number];
    for (let t = 0; t < 64; t += 1) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + s1 + ch + (K[t] as number) + (w[t] as number)) >>> 0;
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + maj) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    hash[0] = ((hash[0] as number) + a) >>> 0;
    hash[1] = ((hash[1] as number) + b) >>> 0;
    hash[2] = ((hash[2] as number) + c) >>> 0;
    hash[3] = ((hash[3] as number) + d) >>> 0;
    hash[4] = ((hash[4] as number) + e) >>> 0;
    hash[5] = ((hash[5] as number) + f) >>> 0;
    hash[6] = ((hash[6] as number) + g) >>> 0;
    hash[7] = ((hash[7] as number) + h) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let index = 0; index < 8; index += 1) outView.setUint32(index * 4, hash[index] as number, false);
  return out;
}
