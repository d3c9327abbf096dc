import { hasSecrets, isOpaque, REDACTED, scrubSecrets } from '../core'

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
// counts tokens and `key` alone (`cache_key`) names no secret; `api`, `private` or `access` before it does.
const SECRET_WORD =
  /^(secrets?|token|passwords?|passwd|passphrase|credentials?|authorization|auth|cookies?|bearer|apikey)$/
// Most keys hold none of these letters and skip splitting into words.
const MAY_NAME_SECRET = /secret|token|pass|credential|auth|cookie|bearer|key/i

function namesSecret(key: string): boolean {
  if (!MAY_NAME_SECRET.test(key)) return false
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
  return words.some(
    (word, at) => SECRET_WORD.test(word) || (word === 'key' && /^(api|private|access)$/.test(words[at - 1] ?? '')),
  )
}

// The shapes of common provider keys: OpenAI/Anthropic/OpenRouter (sk-…), Groq, Google, Hugging Face,
// bearer tokens, each as long as it goes. Never inside a longer word or a base64url blob (`…-sk-…`).
// Each contains one of SECRET_MARKERS: text without one skips them.
const SECRET_VALUES = [
  /(?<![\w-])sk-[A-Za-z0-9_-]{16,}/g,
  /(?<![\w-])gsk_[A-Za-z0-9]{20,}/g,
  /(?<![\w-])AIza[0-9A-Za-z_-]{30,}/g,
  /(?<![\w-])hf_[A-Za-z0-9]{20,}/g,
  /(?<![\w-])Bearer\s+[A-Za-z0-9._~+/-]{12,}=*/g,
]
const SECRET_MARKERS = ['sk-', 'gsk_', 'AIza', 'hf_', 'Bearer']
// One scan for all markers: it runs on every traced string and streamed chunk.
const ANY_MARKER = new RegExp(SECRET_MARKERS.join('|'))
// A JSON key that may name a secret, as it appears in tool arguments (`"password":`), or an escaped one.
const SECRET_JSON_KEY = new RegExp(`"[^"]*(${MAY_NAME_SECRET.source})[^"]*"\\s*:|\\\\u`, 'i')

// The shortest text a built-in pattern matches (`sk-` and 16 more, `Bearer ` and 12 more): tool
// arguments and results are often shorter, and skip the scan.
const SHORTEST_SECRET = 19

// The parts of a JSON Schema whose keys name fields (or subschemas), not secrets.
const NAMED_SCHEMAS = /^(properties|patternProperties|\$defs|definitions|dependentSchemas)$/
// The keywords of a schema that hold example values of its field.
const EXAMPLE_VALUES = /^(default|const|enum|examples?)$/

const MAX_DEPTH = 20

/** Masks secrets in trace data: values under secret keys, and secret-looking text. */
export class Redactor {
  readonly #keys: Array<string | RegExp>
  readonly #values: RegExp[]
  readonly #keep: ReadonlySet<string>

  constructor(rules: RedactionRules = {}) {
    this.#keys = (rules.keys ?? []).map((key) => (typeof key === 'string' ? key.toLowerCase() : statelessCopy(key)))
    this.#values = (rules.values ?? []).map(globalCopy)
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
    if (masked.length >= SHORTEST_SECRET && ANY_MARKER.test(masked)) masked = maskAll(masked, SECRET_VALUES)
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
    if (SECRET_JSON_KEY.test(json)) return true
    if (this.#keys.length === 0) return false
    const lower = json.toLowerCase()
    return this.#keys.some((rule) => typeof rule !== 'string' || lower.includes(`"${rule}"`))
  }

  /** Whether a key names a secret, so its value is masked: by a word of its name (see SECRET_WORD), or by the app's rules. */
  isSecretKey(key: string): boolean {
    const lower = key.toLowerCase()
    if (namesSecret(key) && !this.#keep.has(lower)) return true
    return this.#keys.some((rule) => (typeof rule === 'string' ? rule === lower : rule.test(key)))
  }

  /**
   * A plain-data copy with secrets masked (keys as text too); functions and other non-data values
   * are dropped. `opaque`: message metadata, whose opaque provider payloads are kept as they came.
   */
  data(value: unknown, opaque = false): unknown {
    return this.#copy(value, opaque ? Walk.Metadata : Walk.Data, 0)
  }

  /**
   * A JSON Schema (a tool's input, a response format) as a trace shows it: text masked, field names
   * kept (a `password` field is no secret), the example values (`default`, `enum`…) of a field whose
   * name names a secret masked, and the value of any other key that names one.
   */
  schema(value: unknown): unknown {
    return this.#copy(value, Walk.Schema, 0)
  }

  #copy(value: unknown, walk: Walk, depth: number): unknown {
    if (typeof value === 'string') return this.text(value)
    if (value === null || typeof value === 'number' || typeof value === 'boolean') return value
    if (typeof value !== 'object' || depth > MAX_DEPTH) return undefined
    if (Array.isArray(value))
      return value.map((item) => this.#copy(item, walk === Walk.Fields ? Walk.Schema : walk, depth + 1) ?? null)
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value) as Array<[string, unknown]>) {
      const data =
        key === '__proto__'
          ? undefined
          : walk === Walk.Metadata && isOpaque(key, value as Record<string, unknown>)
            ? item
            : walk === Walk.Fields
              ? this.#copy(item, this.isSecretKey(key) ? Walk.SecretField : Walk.Schema, depth + 1)
              : walk >= Walk.Schema && NAMED_SCHEMAS.test(key)
                ? this.#copy(item, Walk.Fields, depth + 1)
                : this.isSecretKey(key) || (walk === Walk.SecretField && EXAMPLE_VALUES.test(key))
                  ? REDACTED
                  : this.#copy(item, walk, depth + 1)
      if (data !== undefined) copy[this.text(key)] = data
    }
    return copy
  }

  /**
   * Where the earliest match of a secret pattern that runs to the end of `text` begins, or -1: a
   * stream's next chunk may carry it on.
   */
  openSecretAt(text: string): number {
    let open = text.length
    for (const pattern of ANY_MARKER.test(text) ? [...SECRET_VALUES, ...this.#values] : this.#values)
      for (const match of text.matchAll(pattern))
        if (match[0] && match.index + match[0].length === text.length) open = Math.min(open, match.index)
    return open < text.length ? open : -1
  }
}

/** What `Redactor.#copy` walks through: data, message metadata, or a JSON Schema and its parts. */
const enum Walk {
  Data,
  Metadata,
  /** A map of subschemas by the name of the field each describes (`properties`). */
  Fields,
  Schema,
  /** The schema of a field whose name names a secret: its example values are masked. */
  SecretField,
}

function maskAll(text: string, patterns: readonly RegExp[]): string {
  let masked = text
  for (const pattern of patterns) {
    pattern.lastIndex = 0
    if (pattern.test(masked)) masked = masked.replace(pattern, REDACTED)
  }
  return masked
}

// A sticky flag would only match at lastIndex, so value patterns drop it and always replace globally.
function globalCopy(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '') + 'g')
}

// `test` on a global or sticky pattern remembers lastIndex and skips the next match: key patterns drop both flags.
function statelessCopy(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''))
}
