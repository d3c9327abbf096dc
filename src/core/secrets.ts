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

/** The registered secrets, longest first. */
export function registeredSecrets(): readonly string[] {
  return sorted
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

/**
 * Whether `holder[key]` is a provider's opaque payload, which goes back to the provider byte for
 * byte: an encrypted reasoning item (`encrypted_content`), a signature (`signature`,
 * `thoughtSignature`), the `data` of a redacted thinking block. Masking one would break it.
 */
export function isOpaque(key: string, holder: Record<string, unknown>): boolean {
  return (
    typeof holder[key] === 'string' &&
    (/^encrypted_?content$|signature$/i.test(key) || (key === 'data' && holder['type'] === 'redacted_thinking'))
  )
}

/**
 * A plain-data copy of `value` with every string scrubbed, opaque payloads (see `isOpaque`) left as
 * they are; `value` itself when no secret is registered.
 */
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
    if (key !== '__proto__')
      copy[scrubSecrets(key)] = isOpaque(key, value as Record<string, unknown>) ? item : scrubValue(item, depth + 1)
  }
  return copy
}

/** `text` scrubbed, then cut to `length` characters: cutting first could leave a secret's first characters. */
export function scrubAndTruncate(text: string, length: number): string {
  return scrubSecrets(text).slice(0, length)
}
