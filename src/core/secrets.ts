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

/** `text` scrubbed, then cut to `length` characters: cutting first could leave a secret's first characters. */
export function scrubAndTruncate(text: string, length: number): string {
  return scrubSecrets(text).slice(0, length)
}
