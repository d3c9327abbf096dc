import { hasSecrets, REDACTED, scrubSecrets } from '../core'
import { isOpaque } from './scrub-deep'

export { REDACTED }

/** What to mask in traces, besides the built-in rules: object keys by name, and text by pattern. */
export interface RedactionRules {
  /** Object keys whose values are masked (strings match case-insensitively). */
  keys?: Array<string | RegExp>
  /** Patterns masked wherever they appear in text (messages, tool arguments and results, chunks). */
  values?: RegExp[]
  /** Keys a built-in rule names that are not secrets here (e.g. a pagination `token` argument); never masked. */
  keep?: string[]
}

// A key names a secret when one of its words does: `apiKey`, `x-api-key`, `client_secret`,
// `user_secret`, `refresh-token`, `set-cookie`, `DB_PASSWORD`, `auth`. `tokens` (`max_tokens`)
// counts tokens, and so does `token` with a measure (`timeToFirstTokenMs`, `token_count`, `ms_per_token`); `key`
// alone (`cache_key`) names no secret; `api`, `private` or `access` before it does.
const SECRET_WORD =
  /(^|[^a-z])((?<!(first|last|per|each)[^a-z]+)token(?![^a-z]+(ms|seconds?|count|limit|index|per|rate|budget|length|usage)([^a-z]|$))|(secret|passw(or)?d|passphrase|credential|auth(orization)?|cookie|bearer|(api|private|access)[^a-z]?key)s?)([^a-z]|$)/

// What every word of SECRET_WORD contains, in any case: text without one (most tool arguments)
// skips splitting its words, which runs on every traced call.
const SECRET_STEM = /token|secret|passw|passphrase|credential|auth|cookie|bearer|key/i

// The shortest text a built-in pattern matches (`sk-` and 16 more, `Bearer ` and 12 more): tool
// arguments and results are often shorter, and skip the scan. (A key split across stream chunks is
// the streamed tail's to follow.)
const SHORTEST_SECRET = 19

/** `text` lowercased with its camelCase words apart (`clientSecret`: `client secret`), for SECRET_WORD. */
function words(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
}

// The shapes of common provider keys: OpenAI/Anthropic/OpenRouter (sk-…), Groq, Google, Hugging Face,
// bearer tokens, each as long as it goes. Never inside a longer word or a base64url blob (`…-sk-…`).
// Each begins with a marker of ANY_MARKER: text without one skips the pattern.
const SECRET_VALUE =
  /(?<![\w-])(sk-[\w-]{16,}|gsk_[A-Za-z0-9]{20,}|AIza[\w-]{30,}|hf_[A-Za-z0-9]{20,}|Bearer\s+[\w.~+/-]{12,}=*)/g
// One scan for all markers: it runs on every traced string and streamed chunk.
const ANY_MARKER = /sk-|gsk_|AIza|hf_|Bearer/
// A marker and key characters that run to the end of a text: a key a stream may carry on.
const OPEN_SECRET = /(?<![\w-])(sk-|gsk_|AIza|hf_|Bearer)\s*[\w.~+/=-]*$/

const MAX_DEPTH = 20

/** Masks secrets in trace data: values under secret keys, and secret-looking text. */
export class Redactor {
  readonly #keys: Array<string | RegExp>
  readonly #values: RegExp[]
  readonly #keep: ReadonlySet<string>

  constructor(rules: RedactionRules = {}) {
    this.#keys = (rules.keys ?? []).map((key) => (typeof key === 'string' ? key.toLowerCase() : copyOf(key, '')))
    this.#values = (rules.values ?? []).map((value) => copyOf(value, 'g'))
    this.#keep = new Set((rules.keep ?? []).map((key) => key.toLowerCase()))
  }

  /** Whether the app gave patterns of its own, which text without a built-in marker may match. */
  get hasOwnPatterns(): boolean {
    return this.#values.length > 0
  }

  /** Whether `text` holds a marker of a built-in secret pattern (`sk-`, `Bearer`…): text without one holds no built-in secret. */
  hasSecretMarker(text: string): boolean {
    return ANY_MARKER.test(text)
  }

  text(value: string): string {
    let masked = hasSecrets() ? scrubSecrets(value) : value
    if (masked.length >= SHORTEST_SECRET && ANY_MARKER.test(masked)) masked = masked.replace(SECRET_VALUE, REDACTED)
    return this.#values.length > 0 ? maskAll(masked, this.#values) : masked
  }

  /** Tool arguments (JSON text): values under secret keys are masked, then the text as any text. */
  arguments(json: string): string {
    if (!this.#mayHoldSecretKey(json)) return this.text(json)
    let parsed: unknown
    try {
      parsed = JSON.parse(json)
    } catch {
      return this.text(json)
    }
    return JSON.stringify(this.data(parsed)) ?? this.text(json)
  }

  // Parsing every call's arguments would cost each round; most hold no key worth masking.
  #mayHoldSecretKey(json: string): boolean {
    // A key that names a secret is among the words of the text, unless it is spelled with escapes.
    if (json.includes('\\u') || (SECRET_STEM.test(json) && SECRET_WORD.test(words(json)))) return true
    if (this.#keys.length === 0) return false
    const lower = json.toLowerCase()
    return this.#keys.some((rule) => typeof rule !== 'string' || lower.includes(`"${rule}"`))
  }

  /** Whether a key names a secret, so its value is masked: by a word of its name (see SECRET_WORD), or by the app's rules. */
  isSecretKey(key: string): boolean {
    const lower = key.toLowerCase()
    if (SECRET_WORD.test(words(key)) && !this.#keep.has(lower)) return true
    return this.#keys.some((rule) => (typeof rule === 'string' ? rule === lower : rule.test(key)))
  }

  /**
   * A plain-data copy with secrets masked (keys as text too); functions and other non-data values
   * are dropped. `as`: `metadata` (a message's), whose opaque provider payloads are kept as they
   * came; `schema`, a JSON Schema (a tool's input, a response format), where a key that names a
   * secret masks its value unless that is a schema (a `password` field is no secret): that is then
   * walked as a `secret field`, whose example values (`default`, `const`, `enum`, `examples`) are masked.
   */
  data(value: unknown, as?: 'metadata' | 'schema' | 'secret field', depth = 0): unknown {
    if (typeof value === 'string') return this.text(value)
    if (value === null || typeof value === 'number' || typeof value === 'boolean') return value
    if (typeof value !== 'object' || depth > MAX_DEPTH) return undefined
    if (Array.isArray(value)) return value.map((item) => this.data(item, as, depth + 1) ?? null)
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value) as Array<[string, unknown]>) {
      const data =
        key === '__proto__'
          ? undefined
          : as === 'metadata' && isOpaque(key, value as Record<string, unknown>)
            ? item
            : as === 'secret field' && /^(default|const|enum|examples)$/.test(key)
              ? REDACTED
              : this.isSecretKey(key)
                ? as && as !== 'metadata' && item && typeof item === 'object'
                  ? this.data(item, 'secret field', depth + 1)
                  : REDACTED
                : this.data(item, as, depth + 1)
      if (data !== undefined) copy[this.text(key)] = data
    }
    return copy
  }

  /**
   * Where a key of a built-in pattern that runs to the end of `text` begins, or -1: a stream's next
   * chunk may carry it on. (The app's own patterns are looked for within the 64 characters before a chunk.)
   */
  openSecretAt(text: string): number {
    return text.search(OPEN_SECRET)
  }
}

function maskAll(text: string, patterns: readonly RegExp[]): string {
  // A global pattern's replace starts from the beginning whatever its lastIndex.
  for (const pattern of patterns) text = text.replace(pattern, REDACTED)
  return text
}

// A sticky flag would only match at lastIndex, and `test` on a global pattern remembers lastIndex and
// skips the next match: value patterns are made global (they always replace globally), key patterns neither.
function copyOf(pattern: RegExp, flags: string): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '') + flags)
}
