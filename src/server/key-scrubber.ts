import { concat } from './bytes'

/** The key taken out of what passes back to the page: text, header values and streamed bytes. */
const REDACTED = '[redacted]'

/** A key shorter than this is not scrubbed: it would mangle ordinary text, and no provider issues one. */
const SCRUBBED_FROM = 4

/** `text` without the key, wherever a provider or a network error echoes it. */
export function scrubKey(text: string, apiKey: string): string {
  return apiKey.length >= SCRUBBED_FROM ? text.split(apiKey).join(REDACTED) : text
}

/**
 * Scrubs a byte stream chunk by chunk. A key split across chunks is caught: the end of a chunk that
 * could be the start of the key (at most the key's length less one byte) waits for the next chunk.
 */
export function keyScrubber(apiKey: string): { scrub(chunk: Uint8Array): Uint8Array; end(): Uint8Array } {
  const key = new TextEncoder().encode(apiKey)
  const redacted = new TextEncoder().encode(REDACTED)
  let held = new Uint8Array(0)
  if (apiKey.length < SCRUBBED_FROM) return { scrub: (chunk) => chunk, end: () => held }
  return {
    scrub(chunk) {
      const bytes = held.length === 0 ? chunk : concat([held, chunk])
      const parts: Uint8Array[] = []
      let from = 0
      for (let at = indexOf(bytes, key, 0); at !== -1; at = indexOf(bytes, key, from)) {
        parts.push(bytes.subarray(from, at), redacted)
        from = at + key.length
      }
      const keep = bytes.length - keyPrefixAtEnd(bytes, from, key)
      parts.push(bytes.subarray(from, keep))
      held = bytes.slice(keep)
      return parts.length === 1 ? parts[0]! : concat(parts)
    },
    end() {
      const rest = held
      held = new Uint8Array(0)
      return rest
    },
  }
}

function indexOf(bytes: Uint8Array, key: Uint8Array, from: number): number {
  const first = key[0]!
  for (
    let at = bytes.indexOf(first, from);
    at !== -1 && at + key.length <= bytes.length;
    at = bytes.indexOf(first, at + 1)
  ) {
    let whole = true
    for (let i = 1; i < key.length && whole; i++) whole = bytes[at + i] === key[i]
    if (whole) return at
  }
  return -1
}

/** How many bytes at the end of `bytes` (from `from` on) are the start of the key. */
function keyPrefixAtEnd(bytes: Uint8Array, from: number, key: Uint8Array): number {
  for (let length = Math.min(key.length - 1, bytes.length - from); length > 0; length--) {
    let prefix = true
    for (let i = 0; i < length && prefix; i++) prefix = bytes[bytes.length - length + i] === key[i]
    if (prefix) return length
  }
  return 0
}
