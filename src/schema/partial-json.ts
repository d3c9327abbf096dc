import { MAX_JSON_DEPTH } from './parse-json'

/** A container being written: its own copy (until a snapshot shares it) and its place in its parent. */
interface Frame {
  container: Record<string, unknown> | unknown[]
  array: boolean
  /** The key or index this container has in its parent. */
  slot: string | number
  /** The object's key whose value is being read. */
  key: string
  /** A snapshot holds `container`: the next change copies it first. */
  shared: boolean
  /** Changed since the last snapshot. */
  dirty: boolean
}

// What the parser expects next.
const VALUE = 0
const FIRST_KEY = 1 // after `{`: a key or `}`
const KEY = 2 // after `,` in an object
const COLON = 3
const AFTER = 4 // after a value in a container: `,` or the closing bracket
const STRING = 5
const ESCAPE = 6
const UNICODE = 7
const NUMBER = 8
const LITERAL = 9
const FIRST_VALUE = 10 // after `[`: a value or `]`
const DONE = 11 // the root value is complete: only space (and a closing fence) may follow

const LITERALS: Record<string, unknown> = { true: true, false: false, null: null }
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/
const SPACE = /\s/
const HEX = /[\da-fA-F]/
const INFO_CHAR = /[\w-]/
const FENCE = '```'
const THINK = '<think>'
const THINK_END = '</think>'

/**
 * Reads JSON as it arrives, chunk by chunk, in one pass over the text: `value` is the partial value
 * so far, with complete leaves only (strings as they are written when `partialStrings`), and shares
 * every container that did not change with the value before it (a snapshot copies only the changed
 * path). A reasoning block before the answer and a code fence around it are skipped, as
 * `extractJson` does. Bad JSON throws a SyntaxError from `push` or `end`; nesting is bounded by
 * `MAX_JSON_DEPTH`.
 */
export class PartialJsonParser {
  readonly #partialStrings: boolean
  /** Called with each complete item of a root array, once. */
  readonly #onElement: ((element: unknown) => void) | undefined
  readonly #frames: Frame[] = []
  #mode = VALUE
  /** What came before the JSON while it is not yet known where the JSON starts. */
  #lead: string | undefined = ''
  #thinking = false
  /** A reasoning block was skipped: only one may come first. */
  #thought = false
  #fenced = false
  /** In the opening fence's line: 1 in its info string, 2 in the spaces after it. */
  #header = 0
  #error: SyntaxError | undefined
  /** Backticks of the closing fence seen. */
  #closing = 0
  #offset = 0
  #root: unknown
  #string = ''
  #isKey = false
  /** A partial string stands in its array's last slot. */
  #placed = false
  #token = ''
  #literal = ''
  #version = 0
  #snapshotVersion = -1
  #snapshot: unknown

  constructor(options: { partialStrings?: boolean; onElement?: (element: unknown) => void } = {}) {
    this.#partialStrings = options.partialStrings ?? false
    this.#onElement = options.onElement
  }

  /** Grows with every visible change: a reader compares it to know whether `value` is new. */
  get version(): number {
    return this.#version
  }

  /** The value so far: undefined until the root container opens or the root value is complete. */
  get value(): unknown {
    if (this.#snapshotVersion === this.#version) return this.#snapshot
    const frames = this.#frames
    for (let i = frames.length - 1; i > 0; i--) {
      const frame = frames[i]!
      if (!frame.dirty) break
      this.#put(frames[i - 1]!, frame.slot, frame.container)
      frame.dirty = false
      frame.shared = true
    }
    if (frames.length > 0) {
      frames[0]!.dirty = false
      frames[0]!.shared = true
      this.#snapshot = frames[0]!.container
    } else this.#snapshot = this.#root
    this.#snapshotVersion = this.#version
    return this.#snapshot
  }

  push(chunk: string): void {
    if (this.#error) throw this.#error
    let text = chunk
    if (this.#lead !== undefined) {
      text = this.#skipLead(chunk)
      if (text === '') return
    }
    const start = this.#offset
    this.#offset += text.length
    const length = text.length
    let run = 0
    for (let i = 0; i < length; i++) {
      switch (this.#mode) {
        case STRING: {
          // The hot path: the plain characters of a string, up to a quote, a backslash or the chunk's end.
          let code = text.charCodeAt(i)
          while (code !== 34 && code !== 92 && code >= 32 && ++i < length) code = text.charCodeAt(i)
          if (i < length) {
            this.#endRun(text, run, i, code, start)
            run = i + 1
          }
          break
        }
        case ESCAPE: {
          const char = text[i]!
          if (char === 'u') {
            this.#mode = UNICODE
            this.#token = ''
          } else if (ESCAPES[char] === undefined) this.#fail(char, start + i)
          else {
            this.#string += ESCAPES[char]
            this.#mode = STRING
          }
          run = i + 1
          break
        }
        case UNICODE: {
          if (!HEX.test(text[i]!)) this.#fail(text[i]!, start + i)
          this.#token += text[i]
          if (this.#token.length === 4) {
            this.#string += String.fromCharCode(parseInt(this.#token, 16))
            this.#mode = STRING
          }
          run = i + 1
          break
        }
        case NUMBER: {
          const code = text.charCodeAt(i)
          if ((code >= 48 && code <= 57) || code === 46 || code === 101 || code === 69 || code === 43 || code === 45) {
            this.#token += text[i]
          } else {
            this.#endNumber(start + i)
            i--
          }
          break
        }
        case LITERAL:
          this.#token += text[i]
          if (!this.#literal.startsWith(this.#token)) this.#fail(this.#token, start + i)
          if (this.#token === this.#literal) this.#complete(LITERALS[this.#literal])
          break
        case DONE:
          this.#trail(text[i]!, start + i)
          break
        default: {
          const code = text.charCodeAt(i)
          if (code === 32 || code === 10 || code === 13 || code === 9) break
          if (this.#structure(code, text[i]!, start + i)) run = i + 1
        }
      }
    }
    if (this.#mode === STRING) this.#stringRun(text.slice(run))
  }

  /** The end of the answer: the value, complete, or a SyntaxError saying what is missing. */
  end(): unknown {
    if (this.#error) throw this.#error
    if (this.#lead !== undefined) {
      throw new SyntaxError(this.#thinking ? 'The reasoning block is never closed' : 'Unexpected end of JSON input')
    }
    if (this.#mode === NUMBER && this.#frames.length === 0) this.#endNumber(this.#offset)
    if (this.#mode !== DONE) throw new SyntaxError('Unexpected end of JSON input')
    if (this.#fenced && this.#closing < 3) throw new SyntaxError('The code fence is never closed')
    return this.#root
  }

  // Reads a structural character or the first of a value; true when a string starts.
  #structure(code: number, char: string, at: number): boolean {
    const mode = this.#mode
    const frame = this.#frames[this.#frames.length - 1]
    if (mode === COLON) {
      if (code !== 58) this.#fail(char, at)
      this.#mode = VALUE
      return false
    }
    if (mode === FIRST_KEY || mode === KEY) {
      if (code === 34) return this.#startString(true)
      if (code === 125 && mode === FIRST_KEY) this.#close()
      else this.#fail(char, at)
      return false
    }
    if (mode === AFTER) {
      if (code === 44) this.#mode = frame!.array ? VALUE : KEY
      else if (code === (frame!.array ? 93 : 125)) this.#close()
      else this.#fail(char, at)
      return false
    }
    // VALUE or FIRST_VALUE
    if (code === 93 && mode === FIRST_VALUE) {
      this.#close()
      return false
    }
    if (code === 34) return this.#startString(false)
    if (code === 123 || code === 91) this.#open(code === 91, at)
    else if (code === 45 || (code >= 48 && code <= 57)) {
      this.#mode = NUMBER
      this.#token = char
    } else if (char === 't' || char === 'f' || char === 'n') {
      this.#mode = LITERAL
      this.#literal = char === 't' ? 'true' : char === 'f' ? 'false' : 'null'
      this.#token = char
    } else this.#fail(char, at)
    return false
  }

  #startString(isKey: boolean): boolean {
    this.#mode = STRING
    this.#isKey = isKey
    this.#string = ''
    this.#placed = false
    return true
  }

  // A quote, a backslash or a control character ends the run of plain characters.
  #endRun(text: string, run: number, i: number, code: number, start: number): void {
    if (code < 32) this.#fail(text[i]!, start + i)
    this.#string += text.slice(run, i)
    if (code === 92) {
      this.#mode = ESCAPE
      return
    }
    const string = this.#string
    this.#string = ''
    if (!this.#isKey) {
      this.#complete(string)
      return
    }
    this.#frames[this.#frames.length - 1]!.key = string
    this.#mode = COLON
  }

  // The chunk ended inside a string: keep what was read, and show it when partial strings are asked for.
  #stringRun(rest: string): void {
    this.#string += rest
    if (!this.#partialStrings || this.#isKey || this.#frames.length === 0 || (rest === '' && this.#placed)) return
    const frame = this.#frames[this.#frames.length - 1]!
    this.#change(frame)
    if (frame.array && !this.#placed) (frame.container as unknown[]).push(this.#string)
    else if (frame.array) (frame.container as unknown[])[(frame.container as unknown[]).length - 1] = this.#string
    else setKey(frame.container as Record<string, unknown>, frame.key, this.#string)
    this.#placed = true
  }

  #endNumber(at: number): void {
    if (!NUMBER_TEXT.test(this.#token)) this.#fail(this.#token, at)
    this.#complete(Number(this.#token))
  }

  #open(array: boolean, at: number): void {
    if (this.#frames.length >= MAX_JSON_DEPTH) {
      throw (this.#error = new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep (at position ${at})`))
    }
    const parent = this.#frames[this.#frames.length - 1]
    const container = array ? [] : {}
    let slot: string | number = ''
    if (parent) {
      this.#change(parent)
      slot = parent.array ? (parent.container as unknown[]).length : parent.key
      this.#put(parent, slot, container)
    }
    this.#frames.push({ container, array, slot, key: '', shared: false, dirty: true })
    this.#version++
    this.#mode = array ? FIRST_VALUE : FIRST_KEY
  }

  // Closing changes nothing a reader sees: the container is in its parent's slot since it opened.
  #close(): void {
    const frame = this.#frames.pop()!
    const parent = this.#frames[this.#frames.length - 1]
    if (!parent) {
      this.#root = frame.container
      this.#mode = DONE
      return
    }
    if (frame.dirty) this.#put(parent, frame.slot, frame.container)
    this.#mode = AFTER
    if (this.#frames.length === 1 && parent.array) this.#onElement?.(frame.container)
  }

  #complete(value: unknown): void {
    const frame = this.#frames[this.#frames.length - 1]
    if (!frame) {
      this.#root = value
      this.#mode = DONE
      this.#version++
      return
    }
    this.#change(frame)
    if (!frame.array) setKey(frame.container as Record<string, unknown>, frame.key, value)
    else if (this.#placed) (frame.container as unknown[])[(frame.container as unknown[]).length - 1] = value
    else (frame.container as unknown[]).push(value)
    this.#placed = false
    this.#mode = AFTER
    if (this.#frames.length === 1 && frame.array) this.#onElement?.(value)
  }

  // Copy on write: the container a snapshot holds is copied before its first change after it.
  #change(frame: Frame): void {
    if (frame.shared) {
      frame.container = Array.isArray(frame.container) ? frame.container.slice() : { ...frame.container }
      frame.shared = false
    }
    frame.dirty = true
    this.#version++
  }

  #put(parent: Frame, slot: string | number, value: unknown): void {
    if (parent.shared) this.#change(parent)
    parent.dirty = true
    if (parent.array) (parent.container as unknown[])[slot as number] = value
    else setKey(parent.container as Record<string, unknown>, slot as string, value)
  }

  // What may follow the root value: space, and the closing fence when the answer opened one.
  #trail(char: string, at: number): void {
    if (this.#fenced && char === '`' && this.#closing < 3) this.#closing++
    else if (!SPACE.test(char) || (this.#closing > 0 && this.#closing < 3)) this.#fail(char, at, 'after the JSON value')
  }

  // Before the JSON: space, a reasoning block, an opening fence. Gives the text where the JSON starts.
  #skipLead(chunk: string): string {
    // Small: a partial `<think>` or fence, or the end of a reasoning block that may hold `</think>`'s start.
    let text = this.#lead + chunk
    if (this.#thinking) {
      const end = text.indexOf(THINK_END)
      if (end < 0) {
        this.#lead = text.slice(1 - THINK_END.length)
        return ''
      }
      this.#thinking = false
      text = text.slice(end + THINK_END.length)
    }
    if (this.#header > 0) return this.#skipHeader(text)
    text = text.trimStart()
    if (!this.#thought && text.startsWith(THINK)) {
      this.#thought = this.#thinking = true
      this.#lead = ''
      return this.#skipLead(text.slice(THINK.length))
    }
    const waits = (prefix: string) => text.length < prefix.length && prefix.startsWith(text)
    if (text === '' || (!this.#thought && waits(THINK)) || waits(FENCE)) {
      this.#lead = text
      return ''
    }
    if (text.startsWith(FENCE)) {
      this.#fenced = true
      this.#header = 1
      return this.#skipHeader(text.slice(FENCE.length))
    }
    this.#lead = undefined
    return text
  }

  // The fence's info string (`json`), spaces, and the line's end; one character at a time, across chunks.
  #skipHeader(text: string): string {
    let i = 0
    if (this.#header === 1) {
      while (i < text.length && INFO_CHAR.test(text[i]!)) i++
      if (i < text.length) this.#header = 2
    }
    if (this.#header === 2) {
      while (i < text.length && text[i] !== '\n' && SPACE.test(text[i]!)) i++
      if (i < text.length) {
        this.#header = 0
        this.#lead = undefined
        return text.slice(text[i] === '\n' ? i + 1 : i)
      }
    }
    this.#lead = ''
    return ''
  }

  #fail(text: string, at: number, where = 'in JSON'): never {
    throw (this.#error = new SyntaxError(`Unexpected ${JSON.stringify(text)} ${where} at position ${at}`))
  }
}
// `__proto__` is an own key in JSON, as JSON.parse makes it, never the prototype.
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  else target[key] = value
}
