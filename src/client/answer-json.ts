import { parseEntity, partialJsonParser, validEntity, type PartialJsonParser, type ResolvedSchema } from '../schema'
import { AnswerText } from './answer-text'

/** A structured answer followed as its text arrives: see `answerJson`. */
export interface AnswerJson<T> {
  /** The model call followed, counted from 1. */
  readonly call: number
  /** The complete items of the current call's array answer, in order. */
  readonly elements: readonly unknown[]
  /** A new model call: its text is the answer now. */
  restart(): void
  add(delta: string): void
  /** Parses the text that came since; false while the current call's text is not JSON. */
  parse(): boolean
  /** The current call's parser: its `value` and `version` are the answer's while `parse()` says it is JSON. */
  readonly parser: PartialJsonParser
  /** Array items copied to keep earlier values unchanged (what reading `value` often costs), per character of text. */
  readonly copiesPerChar: number
  /**
   * The validated answer: the parser's value when it has read the text already (JSON.parse's for
   * the same text), else parsed now; rejects with OutputParseError saying why.
   */
  entity(): Promise<T>
}

/**
 * A structured answer followed as its text arrives, for `partialEntity` and the chat object's
 * `object`. Every model call (a tool round, a validation retry) starts it over: only the last
 * call's text is the answer. The text is parsed when asked (the deltas that came meanwhile, in one
 * tight loop); a call whose text is not JSON has no partial value, and the end decides.
 */
export function answerJson<T>(schema: ResolvedSchema<T>, partialStrings?: boolean): AnswerJson<T> {
  let text: AnswerText
  let broken: boolean
  const push = (piece: string) => json.parser.push(piece)
  const json = {
    call: 0,
    elements: [] as unknown[],
    parser: undefined as unknown as PartialJsonParser,
    restart() {
      json.call++
      text = new AnswerText()
      broken = false
      const elements: unknown[] = (json.elements = [])
      json.parser = partialJsonParser({ partialStrings, onElement: (element) => elements.push(element) })
    },
    add: (delta: string) => text.add(delta),
    parse() {
      try {
        if (!broken) text.read(push)
      } catch {
        // Prose before a tool call, or a bad answer: the end tells (a retry, or OutputParseError).
        broken = true
      }
      return !broken
    },
    get copiesPerChar() {
      return json.parser.copied / Math.max(1, text.length)
    },
    entity() {
      const answer = text
      if (!answer.started) return parseEntity(answer.toString(), schema)
      let value: unknown
      try {
        if (!json.parse()) throw new SyntaxError()
        value = json.parser.end()
      } catch {
        return parseEntity(answer.toString(), schema)
      }
      return validEntity(value, schema, () => answer.toString())
    },
  }
  json.restart()
  return json
}
