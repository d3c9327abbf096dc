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

const LITERALS = ['true', 'false', 'null']
const SPACE = /\s/
const FENCE = '```'
const THINK = '<think>'
const THINK_END = '</think>'

// A character a JSON number may hold: digits, `.`, `e`, `E`, `+`, `-` (the grammar is checked at its end).
const isNumberCode = (code: number) =>
  (code >= 48 && code <= 57) || code === 46 || code === 101 || code === 69 || code === 43 || code === 45

export function partialJsonParser({ partialStrings, onElement }: PartialJsonOptions = {}): PartialJsonParser {
  const frames: Frame[] = []
  let mode = VALUE
  let offset = 0
  let version = 0
  let copied = 0
  let seen = -1
  let snapshot: unknown
  let root: unknown
  let error: SyntaxError | undefined
  // Before the JSON: text kept while it is not known where the JSON starts (undefined once it started).
  let lead: string | undefined = ''
  let thinking = false
  let thought = false
  let fenced = false
  let header = 0 // in the opening fence's line: 1 in its info string, 2 in the spaces after it
  let closing = 0 // backticks of the closing fence
  // The value being read: a string (a key's when `isKey`), a number's or literal's text, `\u` digits.
  let string = ''
  let isKey = false
  let placed = false // a partial string stands in its array's last slot
  let token = ''

  const fail = (text: string, at: number, where = 'in JSON'): never => {
    throw (error = new SyntaxError(`Unexpected ${JSON.stringify(text)} ${where} at position ${at}`))
  }

  // Copy on write: a container the last `value` holds is copied before its first change after it.
  const put = (frame: Frame, slot: string | number, item: unknown) => {
    if (frame.shared) {
      const container = frame.container as unknown[]
      frame.container = frame.array ? ((copied += container.length), container.slice()) : { ...container }
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
  const slotOf = (frame: Frame) => (frame.array ? (frame.container as unknown[]).length - (placed ? 1 : 0) : frame.key)

  const complete = (item: unknown) => {
    const frame = frames[frames.length - 1]
    mode = frame ? AFTER : DONE
    if (!frame) {
      root = item
      version++
      return
    }
    version++
    put(frame, slotOf(frame), item)
    placed = false
    if (frames.length === 1 && frame.array) onElement?.(item)
  }

  const open = (array: boolean, at: number) => {
    if (frames.length >= MAX_JSON_DEPTH) {
      throw (error = new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep (at position ${at})`))
    }
    const parent = frames[frames.length - 1]
    const container = array ? [] : {}
    const slot = parent ? (parent.array ? (parent.container as unknown[]).length : parent.key) : ''
    if (parent) put(parent, slot, container)
    frames.push({ container, array, slot, key: '', shared: false, dirty: true })
    version++
    mode = array ? FIRST_VALUE : FIRST_KEY
  }

  // Closing shows nothing new: the container is in its parent's slot since it opened.
  const close = () => {
    const frame = frames.pop()!
    const parent = frames[frames.length - 1]
    mode = parent ? AFTER : DONE
    if (!parent) root = frame.container
    else if (frame.dirty) put(parent, frame.slot, frame.container)
    if (frames.length === 1 && parent!.array) onElement?.(frame.container)
  }

  // A structural character or a value's first; gives true when a string starts.
  const structure = (char: string, at: number): boolean => {
    const frame = frames[frames.length - 1]
    if (mode === COLON) {
      if (char !== ':') fail(char, at)
      mode = VALUE
    } else if (mode === AFTER) {
      if (char === ',') mode = frame!.array ? VALUE : KEY
      else if (char === (frame!.array ? ']' : '}')) close()
      else fail(char, at)
    } else if (char === '"') {
      isKey = mode === FIRST_KEY || mode === KEY
      mode = STRING
      string = ''
      return true
    } else if (mode === FIRST_KEY || mode === KEY) {
      if (char === '}' && mode === FIRST_KEY) close()
      else fail(char, at)
    } else if (char === ']' && mode === FIRST_VALUE) close()
    else if (char === '{' || char === '[') open(char === '[', at)
    else if (char === '-' || (char >= '0' && char <= '9')) {
      mode = NUMBER
      token = char
    } else if ('tfn'.includes(char)) {
      mode = LITERAL
      token = char
    } else fail(char, at)
    return false
  }

  // The chunk ended inside a string: keep what was read, and show it when partial strings are asked for.
  const stringRun = (rest: string) => {
    string += rest
    const frame = frames[frames.length - 1]
    if (!partialStrings || isKey || !frame || (rest === '' && placed)) return
    version++
    put(frame, slotOf(frame), string)
    placed = true
  }

  // A number's text, an escape (`\\n`, `\\u00e9`) in quotes: JSON.parse checks and reads it.
  const decode = (text: string, at: number): unknown => {
    try {
      return JSON.parse(text)
    } catch {
      return fail(text, at)
    }
  }

  const endNumber = (at: number) => complete(decode(token, at))

  // What may follow the root value: space, and the closing fence when the answer opened one.
  const trail = (char: string, at: number) => {
    if (fenced && char === '`' && closing < 3) closing++
    else if (!SPACE.test(char) || (closing > 0 && closing < 3)) fail(char, at, 'after the JSON value')
  }

  // Before the JSON: space, a reasoning block, an opening fence. Gives the text where the JSON starts.
  const skipLead = (chunk: string): string => {
    let text = lead + chunk
    if (thinking) {
      const end = text.indexOf(THINK_END)
      // Keeps only what may be the start of `</think>`: linear however long the reasoning.
      lead = text.slice(1 - THINK_END.length)
      if (end < 0) return ''
      thinking = false
      text = text.slice(end + THINK_END.length)
    }
    let i = 0
    if (!header) {
      text = text.trimStart()
      const waits = (prefix: string) => text.length < prefix.length && prefix.startsWith(text)
      if (!thought && text.startsWith(THINK)) {
        thought = thinking = true
        lead = ''
        return skipLead(text.slice(THINK.length))
      }
      if (text === '' || (!thought && waits(THINK)) || waits(FENCE)) {
        lead = text
        return ''
      }
      if (!text.startsWith(FENCE)) {
        lead = undefined
        return text
      }
      fenced = true
      header = 1
      i = FENCE.length
    }
    // The fence's info string (`json`), spaces, and the line's end, across chunks.
    if (header === 1) {
      while (i < text.length && /[\w-]/.test(text[i]!)) i++
      if (i < text.length) header = 2
    }
    if (header === 2) {
      while (i < text.length && text[i] !== '\n' && SPACE.test(text[i]!)) i++
      if (i < text.length) {
        lead = undefined
        return text.slice(text[i] === '\n' ? i + 1 : i)
      }
    }
    lead = ''
    return ''
  }

  return {
    get version() {
      return version
    },

    get copied() {
      return copied
    },

    get value() {
      if (seen === version) return snapshot
      for (let i = frames.length - 1; i > 0 && frames[i]!.dirty; i--) {
        put(frames[i - 1]!, frames[i]!.slot, frames[i]!.container)
        frames[i]!.dirty = false
        frames[i]!.shared = true
      }
      if (frames[0]) {
        frames[0].dirty = false
        frames[0].shared = true
      }
      snapshot = frames[0] ? frames[0].container : root
      seen = version
      return snapshot
    },

    push(chunk) {
      if (error) throw error
      const text = lead === undefined ? chunk : skipLead(chunk)
      const start = offset
      const length = text.length
      offset += length
      let run = 0
      for (let i = 0; i < length; i++) {
        let code = text.charCodeAt(i)
        if (mode === STRING) {
          // The hot path: a string's plain characters, up to a quote, a backslash or the chunk's end.
          while (code !== 34 && code !== 92 && code >= 32 && ++i < length) code = text.charCodeAt(i)
          if (i === length) break
          if (code < 32) fail(text[i]!, start + i)
          string += text.slice(run, i)
          run = i + 1
          if (code === 92) {
            mode = ESCAPE
            token = '\\'
          } else if (!isKey) complete(string)
          else {
            frames[frames.length - 1]!.key = string
            mode = COLON
          }
        } else if (mode === NUMBER) {
          const from = i
          while (isNumberCode(code) && ++i < length) code = text.charCodeAt(i)
          token += text.slice(from, i)
          if (i < length) {
            endNumber(start + i)
            i--
          }
        } else if (mode > LITERAL && (code === 32 || code === 10 || code === 13 || code === 9)) {
          if (mode === DONE && closing > 0 && closing < 3) fail(text[i]!, start + i, 'after the JSON value')
        } else {
          const char = text[i]!
          if (mode === ESCAPE) {
            // `\n` or `\u00e9`, read whole, then decoded.
            token += char
            if (token[1] !== 'u' || token.length === 6) {
              string += decode(`"${token}"`, start + i) as string
              mode = STRING
            }
            run = i + 1
          } else if (mode === LITERAL) {
            token += char
            const literal = LITERALS.find((name) => name.startsWith(token)) ?? fail(token, start + i)
            if (token === literal) complete(JSON.parse(literal))
          } else if (mode === DONE) trail(char, start + i)
          else if (structure(char, start + i)) run = i + 1
        }
      }
      if (mode === STRING) stringRun(text.slice(run))
    },

    end() {
      if (error) throw error
      if (lead !== undefined) throw new SyntaxError(thinking ? 'The reasoning block is never closed' : 'No JSON')
      if (mode === NUMBER && !frames.length) endNumber(offset)
      if (mode !== DONE) throw new SyntaxError('Unexpected end of JSON input')
      if (fenced && closing < 3) throw new SyntaxError('The code fence is never closed')
      return root
    },
  }
}
