import type { StreamPart } from '../core'
import { parseEntity, partialJsonParser, resolveSchema, type PartialJsonParser, type SchemaLike } from '../schema'

/** The structured answer of a chat turn as its parts arrive: see `useChat`'s `output`. */
export interface ChatObject {
  readonly jsonSchema: object
  /** Reads one part; true when the partial value changed. */
  read(part: StreamPart): boolean
  /** The partial value so far (undefined before the JSON starts, or while the current attempt's text is not JSON). */
  readonly value: unknown
  /** The validated final value; rejects with OutputParseError. */
  entity(): Promise<unknown>
}

/**
 * Follows a streamed answer's text as the schema's JSON: every model call (a tool round, a
 * validation retry) starts it over, as `partialEntity` does.
 */
export function chatObject(schema: SchemaLike): ChatObject {
  const resolved = resolveSchema(schema, 'output')
  let parser: PartialJsonParser = partialJsonParser()
  let text = ''
  let broken = false
  let shown = parser.version
  return {
    jsonSchema: resolved.jsonSchema,
    read(part) {
      if (part.type === 'round-start' || part.type === 'attempt-start') {
        parser = partialJsonParser()
        text = ''
        broken = false
        shown = -1
        return true
      }
      if (part.type !== 'text-delta') return false
      text += part.delta
      try {
        if (!broken) parser.push(part.delta)
      } catch {
        broken = true
      }
      if (broken || shown === parser.version) return false
      shown = parser.version
      return true
    },
    get value() {
      return broken ? undefined : parser.value
    },
    entity: () => parseEntity(text, resolved),
  }
}
