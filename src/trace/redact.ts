import { hasSecrets, REDACTED, scrubSecrets } from '../core'

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

// Keys that hold credentials in headers and provider options.
const SECRET_KEYS =
  /^(api[-_]?key|x-api-key|x-goog-api-key|authorization|proxy-authorization|cookie|set-cookie|password|passwd|secret|client[-_]?secret|token|access[-_]?token|refresh[-_]?token|id[-_]?token|session[-_]?token)$/i

// The shapes of common provider keys: OpenAI/Anthropic/OpenRouter (sk-…), Groq, Google, Hugging Face, bearer tokens.
// Each contains one of SECRET_MARKERS: text without one skips them.
const SECRET_VALUES = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgsk_[A-Za-z0-9]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bhf_[A-Za-z0-9]{20,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*/g,
]
const SECRET_MARKERS = ['sk-', 'gsk_', 'AIza', 'hf_', 'Bearer']
// One scan for all markers: it runs on every traced string and streamed chunk.
const ANY_MARKER = new RegExp(SECRET_MARKERS.join('|'))
// A JSON key that SECRET_KEYS names, as it appears in tool arguments: `"password":`.
const SECRET_JSON_KEY = new RegExp(`"${SECRET_KEYS.source.slice(1, -1)}"\\s*:`, 'i')

// The shortest text a built-in pattern matches (`sk-` and 16 more, `Bearer ` and 12 more): tool
// arguments and results are often shorter, and skip the scan.
const SHORTEST_SECRET = 19

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

  isSecretKey(key: string): boolean {
    const lower = key.toLowerCase()
    if (SECRET_KEYS.test(key) && !this.#keep.has(lower)) return true
    return this.#keys.some((rule) => (typeof rule === 'string' ? rule === lower : rule.test(key)))
  }

  /** A plain-data copy with secrets masked; functions and other non-data values are dropped. */
  data(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value)
    if (value === null || typeof value === 'number' || typeof value === 'boolean') return value
    if (typeof value !== 'object' || depth > MAX_DEPTH) return undefined
    if (Array.isArray(value)) return value.map((item) => this.data(item, depth + 1) ?? null)
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') continue
      if (this.isSecretKey(key)) copy[key] = REDACTED
      else {
        const data = this.data(item, depth + 1)
        if (data !== undefined) copy[key] = data
      }
    }
    return copy
  }
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
