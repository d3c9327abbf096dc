import { parseEntity, partialJsonParser, validEntity, type PartialJsonParser, type ResolvedSchema } from '../schema'
import { AnswerText } from './answer-text'

/**
 * A structured answer followed as its text arrives, for `partialEntity` and the chat object's
 * `object`. Every model call (a tool round, a validation retry) starts it over: only the last
 * call's text is the answer. The text is parsed when asked (the deltas that came meanwhile, in one
 * tight loop); a call whose text is not JSON has no partial value, and the end decides.
 */
export class AnswerJson<T = unknown> {
  /** The model call followed, counted from 1. */
  call = 0
  /** The complete items of the current call's array answer, in order. */
  elements: unknown[] = []
  readonly #schema: ResolvedSchema<T>
  readonly #partialStrings: boolean
  #text = new AnswerText()
  #parser!: PartialJsonParser
  #broken = false

  constructor(schema: ResolvedSchema<T>, partialStrings = false) {
    this.#schema = schema
    this.#partialStrings = partialStrings
    this.restart()
  }

  /** A new model call: its text is the answer now. */
  restart(): void {
    this.call++
    this.#text = new AnswerText()
    this.#broken = false
    const elements: unknown[] = (this.elements = [])
    this.#parser = partialJsonParser({
      partialStrings: this.#partialStrings,
      onElement: (element) => elements.push(element),
    })
  }

  add(delta: string): void {
    this.#text.add(delta)
  }

  /** Parses the text that came since; false while the current call's text is not JSON. */
  parse(): boolean {
    try {
      if (!this.#broken) this.#text.read(this.#push)
    } catch {
      // Prose before a tool call, or a bad answer: the end tells (a retry, or OutputParseError).
      this.#broken = true
    }
    return !this.#broken
  }

  /** The partial value as last parsed (undefined before the JSON starts, or while it is not JSON). */
  get value(): unknown {
    return this.#broken ? undefined : this.#parser.value
  }

  /** Grows with each change `value` would show. */
  get version(): number {
    return this.#parser.version
  }

  /** Array items copied to keep earlier values unchanged (what reading `value` often costs), against the text's length. */
  get copiesPerChar(): number {
    return this.#parser.copied / Math.max(1, this.#text.length)
  }

  /**
   * The validated answer: the parser's value when it has read the text already (JSON.parse's for
   * the same text), else parsed now; rejects with OutputParseError saying why.
   */
  entity(): Promise<T> {
    const text = this.#text
    if (!text.started) return parseEntity(text.toString(), this.#schema)
    let value: unknown
    try {
      if (!this.parse()) throw new SyntaxError()
      value = this.#parser.end()
    } catch {
      return parseEntity(text.toString(), this.#schema)
    }
    return validEntity(value, this.#schema, () => text.toString())
  }

  readonly #push = (piece: string): void => this.#parser.push(piece)
}
