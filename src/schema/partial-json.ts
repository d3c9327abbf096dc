import { MAX_JSON_DEPTH } from './parse-json'

/**
 * Reads JSON as it arrives, chunk by chunk, in one pass over the text. `value` is the value so far
 * with complete leaves only (strings also while they are written, with `partialStrings`); a new
 * `value` shares every container that did not change with the one before (only the changed path
 * is copied). A reasoning block before the answer and a code fence around it are skipped as
 * `extractJson` skips them. Bad JSON is a SyntaxError from `push` or `end`, and stays one; nesting
 * is bounded by `MAX_JSON_DEPTH`.
 */
export interface PartialJsonParser {
  push(chunk: string): void
  /** The end of the answer: the whole value, or a SyntaxError saying what is missing. */
  end(): unknown
  /** Undefined until the root container opens or the root value is complete. */
  readonly value: unknown
  /** Grows with every change `value` shows. */
  readonly version: number
  /** Array items copied so far to keep earlier values unchanged: what reading `value` often costs. */
  readonly copied: number
}

export interface PartialJsonOptions {
  partialStrings?: boolean
  /** Called once with each complete item of a root array. */
  onElement?: (element: unknown) => void
}

/** A container being written, its key or index in its parent, the key being read, and its copy-on-write state. */
interface Frame {
  container: Record<string, unknown> | unknown[]
  array: boolean
  slot: string | number
  key: string
  /** The last `value` holds `container`: the next change copies it first. */
  shared: boolean
  /** Changed since the last `value`. */
  dirty: boolean
}

// What the parser expects next (the modes below VALUE read one value's characters).
const STRING = 0
const ESCAPE = 1
const NUMBER = 3
const LITERAL = 4
const DONE = 5 // the root value is complete: only space (and a closing fence) may follow
const VALUE = 6
const FIRST_VALUE = 7 // after `[`: a value or `]`
const FIRST_KEY = 8 // after `{`: a key or `}`
const KEY = 9 // after `,` in an object
const COLON = 10
const AFTER = 11 // after a value in a container: `,` or the closing bracket

const LITERALS: Record<string, { text: string; value: boolean | null }> = {
  t: { text: 'true', value: true },
  f: { text: 'false', value: false },
  n: { text: 'null', value: null },
}
// JSON's number grammar: a number that passes is read by Number(), as JSON.parse would read it.
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/
const SPACE = /\s/
const FENCE = '```'
const THINK = '<think>'
const THINK_END = '</think>'

// A string read across chunks is, in V8, a tree of the chunks' pieces that the value would keep
// alive; reading a character makes it one flat string (the parse takes a third less time).
const flat = (text: string) => (text.charCodeAt(0), text)

// A character a JSON number may hold: digits, `.`, `e`, `E`, `+`, `-` (the grammar is checked at its end).
const isNumberCode = (code: number) =>
  (code >= 48 && code <= 57) || code === 46 || code === 101 || code === 69 || code === 43 || code === 45

export function partialJsonParser(options: PartialJsonOptions = {}): PartialJsonParser {
  return new PartialJson(options)
}

// A class, not closures: V8 optimizes its methods once for every parser, where the closures of
// each new parser were optimized again (a stream makes one parser per model call).
class PartialJson implements PartialJsonParser {
  readonly #partialStrings: boolean
  readonly #onElement: ((element: unknown) => void) | undefined
  readonly #frames: Frame[] = []
  #mode = VALUE
  #offset = 0
  #version = 0
  #copied = 0
  #seen = -1
  #snapshot: unknown
  #root: unknown
  #error: SyntaxError | undefined
  // Before the JSON: text kept while it is not known where the JSON starts (undefined once it started).
  #lead: string | undefined = ''
  #thinking = false
  #thought = false
  #fenced = false
  #header = 0 // in the opening fence's line: 1 in its info string, 2 in the spaces after it
  #closing = 0 // backticks of the closing fence
  // The value being read: a string (a key's when `isKey`), a number's or literal's text, `\u` digits.
  #string = ''
  #isKey = false
  #placed = false // a partial string stands in its array's last slot
  #token = ''

  constructor({ partialStrings, onElement }: PartialJsonOptions) {
    this.#partialStrings = partialStrings ?? false
    this.#onElement = onElement
  }

  get version(): number {
    return this.#version
  }

  get copied(): number {
    return this.#copied
  }

  get value(): unknown {
    if (this.#seen === this.#version) return this.#snapshot
    const frames = this.#frames
    for (let i = frames.length - 1; i > 0 && frames[i]!.dirty; i--) {
      this.#put(frames[i - 1]!, frames[i]!.slot, frames[i]!.container)
      frames[i]!.dirty = false
      frames[i]!.shared = true
    }
    if (frames[0]) {
      frames[0].dirty = false
      frames[0].shared = true
    }
    this.#snapshot = frames[0] ? frames[0].container : this.#root
    this.#seen = this.#version
    return this.#snapshot
  }

  push(chunk: string): void {
    if (this.#error) throw this.#error
    const text = this.#lead === undefined ? chunk : this.#skipLead(chunk)
    const start = this.#offset
    const length = text.length
    this.#offset += length
    let run = 0
    for (let i = 0; i < length; i++) {
      let code = text.charCodeAt(i)
      const mode = this.#mode
      if (mode === STRING) {
        // The hot path: a string's plain characters, up to a quote, a backslash or the chunk's end.
        while (code !== 34 && code !== 92 && code >= 32 && ++i < length) code = text.charCodeAt(i)
        if (i === length) break
        if (code < 32) this.#fail(text[i]!, start + i)
        this.#string += text.slice(run, i)
        run = i + 1
        if (code === 92) {
          this.#mode = ESCAPE
          this.#token = '\\'
        } else if (!this.#isKey) this.#complete(flat(this.#string))
        else {
          this.#frames[this.#frames.length - 1]!.key = flat(this.#string)
          this.#mode = COLON
        }
      } else if (mode === NUMBER) {
        const from = i
        while (isNumberCode(code) && ++i < length) code = text.charCodeAt(i)
        this.#token += text.slice(from, i)
        if (i < length) {
          this.#endNumber(start + i)
          i--
        }
      } else if (mode > LITERAL && (code === 32 || code === 10 || code === 13 || code === 9)) {
        if (mode === DONE && this.#closing > 0 && this.#closing < 3)
          this.#fail(text[i]!, start + i, 'after the JSON value')
      } else {
        const char = text[i]!
        if (mode === ESCAPE) {
          // `\n` or `\u00e9`, read whole, then decoded.
          const token = (this.#token += char)
          if (token[1] !== 'u' || token.length === 6) {
            this.#string += this.#decode(`"${token}"`, start + i) as string
            this.#mode = STRING
          }
          run = i + 1
        } else if (mode === LITERAL) {
          const token = (this.#token += char)
          const literal = LITERALS[token[0]!]!
          if (char !== literal.text[token.length - 1]) this.#fail(token, start + i)
          if (token.length === literal.text.length) this.#complete(literal.value)
        } else if (mode === DONE) this.#trail(char, start + i)
        else if (this.#structure(char, start + i)) run = i + 1
      }
    }
    if (this.#mode === STRING) this.#stringRun(text.slice(run))
  }

  end(): unknown {
    if (this.#error) throw this.#error
    if (this.#lead !== undefined)
      throw new SyntaxError(this.#thinking ? 'The reasoning block is never closed' : 'No JSON')
    if (this.#mode === NUMBER && !this.#frames.length) this.#endNumber(this.#offset)
    if (this.#mode !== DONE) throw new SyntaxError('Unexpected end of JSON input')
    if (this.#fenced && this.#closing < 3) throw new SyntaxError('The code fence is never closed')
    return this.#root
  }

  #fail(text: string, at: number, where = 'in JSON'): never {
    throw (this.#error = new SyntaxError(`Unexpected ${JSON.stringify(text)} ${where} at position ${at}`))
  }

  // Copy on write: a container the last `value` holds is copied before its first change after it.
  #put(frame: Frame, slot: string | number, item: unknown): void {
    if (frame.shared) {
      const container = frame.container as unknown[]
      frame.container = frame.array ? ((this.#copied += container.length), container.slice()) : { ...container }
      frame.shared = false
    }
    frame.dirty = true
    // `__proto__` is an own key in JSON, as JSON.parse makes it, never the prototype.
    if (slot === '__proto__')
      Object.defineProperty(frame.container, slot, {
        value: item,
        writable: true,
        enumerable: true,
        configurable: true,
      })
    else (frame.container as Record<string, unknown>)[slot] = item
  }

  // Where the value being read goes: its key, or the array's end (its last slot when a partial string stands there).
  #slotOf(frame: Frame): string | number {
    return frame.array ? (frame.container as unknown[]).length - (this.#placed ? 1 : 0) : frame.key
  }

  #complete(item: unknown): void {
    const frames = this.#frames
    const frame = frames[frames.length - 1]
    this.#version++
    if (!frame) {
      this.#mode = DONE
      this.#root = item
      return
    }
    this.#mode = AFTER
    this.#put(frame, this.#slotOf(frame), item)
    this.#placed = false
    if (frames.length === 1 && frame.array) this.#onElement?.(item)
  }

  #open(array: boolean, at: number): void {
    const frames = this.#frames
    if (frames.length >= MAX_JSON_DEPTH) {
      throw (this.#error = new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep (at position ${at})`))
    }
    const parent = frames[frames.length - 1]
    const container = array ? [] : {}
    const slot = parent ? (parent.array ? (parent.container as unknown[]).length : parent.key) : ''
    if (parent) this.#put(parent, slot, container)
    frames.push({ container, array, slot, key: '', shared: false, dirty: true })
    this.#version++
    this.#mode = array ? FIRST_VALUE : FIRST_KEY
  }

  // Closing shows nothing new: the container is in its parent's slot since it opened.
  #close(): void {
    const frames = this.#frames
    const frame = frames.pop()!
    const parent = frames[frames.length - 1]
    this.#mode = parent ? AFTER : DONE
    if (!parent) this.#root = frame.container
    else if (frame.dirty) this.#put(parent, frame.slot, frame.container)
    if (frames.length === 1 && parent!.array) this.#onElement?.(frame.container)
  }

  // A structural character or a value's first; gives true when a string starts.
  #structure(char: string, at: number): boolean {
    const frame = this.#frames[this.#frames.length - 1]
    const mode = this.#mode
    if (mode === COLON) {
      if (char !== ':') this.#fail(char, at)
      this.#mode = VALUE
    } else if (mode === AFTER) {
      if (char === ',') this.#mode = frame!.array ? VALUE : KEY
      else if (char === (frame!.array ? ']' : '}')) this.#close()
      else this.#fail(char, at)
    } else if (char === '"') {
      this.#isKey = mode === FIRST_KEY || mode === KEY
      this.#mode = STRING
      this.#string = ''
      return true
    } else if (mode === FIRST_KEY || mode === KEY) {
      if (char === '}' && mode === FIRST_KEY) this.#close()
      else this.#fail(char, at)
    } else if (char === ']' && mode === FIRST_VALUE) this.#close()
    else if (char === '{' || char === '[') this.#open(char === '[', at)
    else if (char === '-' || (char >= '0' && char <= '9')) {
      this.#mode = NUMBER
      this.#token = char
    } else if ('tfn'.includes(char)) {
      this.#mode = LITERAL
      this.#token = char
    } else this.#fail(char, at)
    return false
  }

  // The chunk ended inside a string: keep what was read, and show it when partial strings are asked for.
  #stringRun(rest: string): void {
    this.#string += rest
    const frame = this.#frames[this.#frames.length - 1]
    if (!this.#partialStrings || this.#isKey || !frame || (rest === '' && this.#placed)) return
    this.#version++
    this.#put(frame, this.#slotOf(frame), this.#string)
    this.#placed = true
  }

  // An escape (`\\n`, `\\u00e9`) in quotes: JSON.parse checks and reads it.
  #decode(text: string, at: number): unknown {
    try {
      return JSON.parse(text)
    } catch {
      return this.#fail(text, at)
    }
  }

  #endNumber(at: number): void {
    const token = this.#token
    this.#complete(JSON_NUMBER.test(token) ? Number(token) : this.#fail(token, at))
  }

  // What may follow the root value: space, and the closing fence when the answer opened one.
  #trail(char: string, at: number): void {
    if (this.#fenced && char === '`' && this.#closing < 3) this.#closing++
    else if (!SPACE.test(char) || (this.#closing > 0 && this.#closing < 3)) this.#fail(char, at, 'after the JSON value')
  }

  // Before the JSON: space, a reasoning block, an opening fence. Gives the text where the JSON starts.
  #skipLead(chunk: string): string {
    let text = this.#lead + chunk
    if (this.#thinking) {
      const end = text.indexOf(THINK_END)
      // Keeps only what may be the start of `</think>`: linear however long the reasoning.
      this.#lead = text.slice(1 - THINK_END.length)
      if (end < 0) return ''
      this.#thinking = false
      text = text.slice(end + THINK_END.length)
    }
    let i = 0
    if (!this.#header) {
      text = text.trimStart()
      const waits = (prefix: string) => text.length < prefix.length && prefix.startsWith(text)
      if (!this.#thought && text.startsWith(THINK)) {
        this.#thought = this.#thinking = true
        this.#lead = ''
        return this.#skipLead(text.slice(THINK.length))
      }
      if (text === '' || (!this.#thought && waits(THINK)) || waits(FENCE)) {
        this.#lead = text
        return ''
      }
      if (!text.startsWith(FENCE)) {
        this.#lead = undefined
        return text
      }
      this.#fenced = true
      this.#header = 1
      i = FENCE.length
    }
    // The fence's info string (`json`), spaces, and the line's end, across chunks.
    if (this.#header === 1) {
      while (i < text.length && /[\w-]/.test(text[i]!)) i++
      if (i < text.length) this.#header = 2
    }
    if (this.#header === 2) {
      while (i < text.length && text[i] !== '\n' && SPACE.test(text[i]!)) i++
      if (i < text.length) {
        this.#lead = undefined
        return text.slice(text[i] === '\n' ? i + 1 : i)
      }
    }
    this.#lead = ''
    return ''
  }
}
