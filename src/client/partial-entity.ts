import {
  abortError,
  LOWEST_PRECEDENCE,
  pushedStream,
  type AnyAdvisor,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisorChain,
} from '../core'
import type { DeepPartial, ResolvedSchema } from '../schema'
import { answerJson } from './answer-json'

const COPIES_PER_CHAR = 2

/** The structured answer of a stream, while it is written: see `StreamResponseSpec.partialEntity`. */
export interface PartialEntityStream<T> extends AsyncIterable<DeepPartial<T>> {
  /** The validated final value; rejects with OutputParseError, the stream's error, or an AbortError. */
  readonly entity: Promise<T>
  /** Each item of the answer's array once it is complete and valid (again from the start when an attempt restarts). */
  elements(): AsyncIterable<T extends readonly (infer E)[] ? E : never>
}

/**
 * Reads a stream's text as the answer's JSON, incrementally. Every model call (a tool round, a
 * validation retry) starts the partial value over: only the last call's text is the answer. A call
 * whose text is not JSON yields nothing more; the end decides (parse, then validate). Readers share
 * one read of the stream; `return()` of a reader stops it unless `entity` was asked for.
 */
export function entityStream<T>(
  open: (extra: AnyAdvisor[]) => AsyncIterable<ChatClientResponse>,
  schema: ResolvedSchema<T>,
  partialStrings?: boolean,
): PartialEntityStream<T> {
  type Item = T extends readonly (infer E)[] ? E : never
  let source: AsyncIterator<ChatClientResponse> | undefined
  // The answer's JSON: the current model call's text, its number, its complete array items.
  const json = answerJson(schema, partialStrings)
  let newCall = true
  let ended = false
  let failure: { error: unknown } | undefined
  let entity: Promise<T> | undefined
  let reading: Promise<void> | undefined

  // Innermost in the chain, so it sees every model call start: the answer's text starts over there.
  const callStarts = {
    name: 'Partial Entity',
    order: LOWEST_PRECEDENCE,
    adviseStream: (request: ChatClientRequest, chain: StreamAdvisorChain) => {
      newCall = true
      return chain.nextStream(request)
    },
  }

  const take = (chunk: ChatClientResponse) => {
    if (newCall) {
      newCall = false
      json.restart()
    }
    const delta = chunk.chatResponse?.results[0]?.output.text
    if (delta) json.add(delta)
  }

  const took = (step: IteratorResult<ChatClientResponse>) => {
    reading = undefined
    if (step.done) ended = true
    else take(step.value)
  }
  const failed = (error: unknown) => {
    reading = undefined
    ended = true
    failure = { error }
  }

  /** Takes the next chunk into the answer's JSON: every reader that asks meanwhile shares the one read. */
  const readChunk = (): Promise<void> => {
    source ??= open([callStarts])[Symbol.asyncIterator]()
    return (reading ??= source.next().then(took, failed))
  }

  const settle = async (): Promise<T> => {
    while (!ended) await readChunk()
    if (failure) throw failure.error
    return json.entity()
  }

  const stop = async (): Promise<void> => {
    if (entity || ended) return
    ended = true
    failure = { error: abortError() }
    await source?.return?.()
  }

  // A reader: each value `step` finds, reading chunks until it finds one; at the end, the entity's error if any.
  const reader = <V>(step: () => Promise<{ value: V } | undefined>): AsyncIterator<V> =>
    pushedStream<V>((feed) => ({
      async pull() {
        for (;;) {
          const found = await step()
          if (found) return feed.push(found.value)
          if (ended) break
          await readChunk()
        }
        await stream.entity
        feed.end()
      },
      stop,
    }))

  const stream: PartialEntityStream<T> = {
    get entity() {
      return (entity ??= settle())
    },

    [Symbol.asyncIterator]() {
      let seenCall = 0
      let version = -1
      let shown = 0
      return reader(async () => {
        if (newCall) return undefined
        // A value shares what did not change with the last one, but a changed array is copied: while
        // the copies pass 2 items a character read (a wide array), a new value waits for more text, or
        // for 16 ms since the last such value (a slow stream still shows every change within a frame).
        if (!ended && json.copiesPerChar > COPIES_PER_CHAR) {
          if (Date.now() - shown < 16) return undefined
          shown = Date.now()
        }
        const { parser } = json
        if (!json.parse() || (seenCall === json.call && version === parser.version)) return undefined
        const value = parser.value as DeepPartial<T> | undefined
        seenCall = json.call
        version = parser.version
        return value === undefined ? undefined : { value }
      })
    },

    elements() {
      let seenCall = 0
      let next = 0
      return {
        [Symbol.asyncIterator]: () =>
          reader<Item>(async () => {
            if (newCall) return undefined
            if (seenCall !== json.call) [seenCall, next] = [json.call, 0]
            json.parse()
            const { elements } = json
            while (next < elements.length) {
              const element = elements[next++]
              // An item is valid when the schema finds nothing wrong inside it as the array's only item.
              const validation = await schema.validate([element])
              if (validation.ok) return { value: (validation.value as Item[])[0]! }
              if (!validation.issues.some((issue) => issue.path.startsWith('/0'))) return { value: element as Item }
            }
            return undefined
          }),
      }
    },
  }
  return stream
}
