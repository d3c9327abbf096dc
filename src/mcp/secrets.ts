import type { RedactionRules } from '../trace'

// Shorter values (e.g. `1`, `on`) would mask ordinary words; they are not credentials.
const MIN_SECRET_LENGTH = 6

/**
 * The masking rules for what a tool set was given: every header value (and the token of a
 * `Bearer` value) and a password in the URL. The one place that learns the set's secrets, so a
 * library-wide secret registry connects here.
 */
export function secretRules(headers: Readonly<Record<string, string>>, url?: URL): RedactionRules {
  const secrets = new Set<string>()
  for (const value of Object.values(headers)) {
    secrets.add(value.trim())
    const token = /^\S+\s+(\S+)$/.exec(value.trim())?.[1]
    if (token) secrets.add(token)
  }
  if (url?.password) secrets.add(decodeURIComponent(url.password))
  const values = [...secrets]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    .map((secret) => new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))
  return { values }
}
