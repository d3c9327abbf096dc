/** What a secret is replaced with wherever it would leave the library. */
export const REDACTED = '[redacted]'

// Shorter values cannot be told apart from ordinary text; masking them would garble every trace.
const MIN_SECRET_LENGTH = 6

const secrets = new Set<string>()
let sorted: readonly string[] = []

/**
 * Remembers a value the library was given as a credential (an API key, a header value, URL
 * credentials), so that it is scrubbed from every error, trace event, cassette and span. Values
 * shorter than 6 characters are ignored.
 */
export function registerSecret(value: unknown): void {
  if (typeof value !== 'string') return
  const secret = value.trim()
  if (secret.length < MIN_SECRET_LENGTH || secrets.has(secret)) return
  secrets.add(secret)
  // Longest first, so a key that contains another registered value is masked whole.
  sorted = [...secrets].sort((a, b) => b.length - a.length)
}

/** Whether any secret is registered; when none is, scrubbing costs nothing. */
export function hasSecrets(): boolean {
  return sorted.length > 0
}

/** `text` with every registered secret replaced by `[redacted]`. */
export function scrubSecrets(text: string): string {
  let scrubbed = text
  for (const secret of sorted) {
    if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED)
  }
  return scrubbed
}

/** A plain-data copy of `value` with every string scrubbed; `value` itself when no secret is registered. */
export function scrubSecretsDeep<T>(value: T): T {
  if (sorted.length === 0) return value
  return scrubValue(value, 0) as T
}

function scrubValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubSecrets(value)
  if (value === null || typeof value !== 'object' || depth > 64) return value
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1))
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (key !== '__proto__') copy[scrubSecrets(key)] = scrubValue(item, depth + 1)
  }
  return copy
}

/** `text` scrubbed, then cut to `length` characters: cutting first could leave a secret's first characters. */
export function scrubAndTruncate(text: string, length: number): string {
  return scrubSecrets(text).slice(0, length)
}

/**
 * Scrubs text that arrives in pieces (a stream's deltas): a secret split across pieces is masked
 * whole. The end of a piece that could be the start of a secret is held back until the next
 * piece says whether it is one. Costs nothing while no secret is registered.
 */
export class SecretStreamScrubber {
  #held = ''

  /** The part of the text so far that is safe to show. */
  push(piece: string): string {
    if (sorted.length === 0 && this.#held === '') return piece
    const text = scrubSecrets(this.#held + piece)
    const hold = heldBackLength(text)
    this.#held = text.slice(text.length - hold)
    return text.slice(0, text.length - hold)
  }

  /** What was held back, at the end of the stream: no secret can complete any more. */
  flush(): string {
    const rest = this.#held
    this.#held = ''
    return rest
  }
}

/** The length of the longest end of `text` that is the start of a registered secret. */
function heldBackLength(text: string): number {
  let longest = 0
  for (const secret of sorted) {
    // Only positions holding the secret's first character can start it; the first such match is the longest.
    const from = Math.max(0, text.length - secret.length + 1)
    for (
      let at = text.indexOf(secret[0]!, from);
      at !== -1 && text.length - at > longest;
      at = text.indexOf(secret[0]!, at + 1)
    ) {
      if (secret.startsWith(text.slice(at))) {
        longest = text.length - at
        break
      }
    }
  }
  return longest
}
