import { hasSecrets, scrubSecrets } from '../core'

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
  if (!hasSecrets()) return value
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
