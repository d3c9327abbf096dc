import {
  abortError,
  LOWEST_PRECEDENCE,
  streamStage,
  type AnyAdvisor,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisorChain,
} from '../core'
import type { DeepPartial, ResolvedSchema } from '../schema'
import { answerJson } from './answer-json'

const COPIES_PER_CHAR = 2
const TAKEN: IteratorResult<void> = Object.freeze({ done: false, value: undefined })
const DONE: IteratorResult<void> = Object.freeze({ done: true, value: undefined })

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
  let reading: Promise<IteratorResult<void>> | undefined

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

  // What a read of the stream tells a reader: a chunk was taken (or the stream ended or failed, which
  // a reader sees once so that it looks at the answer one last time), or nothing more.
  const took = (step: IteratorResult<ChatClientResponse>): IteratorResult<void> => {
    reading = undefined
    if (step.done) ended = true
    else take(step.value)
    return TAKEN
  }
  const failed = (error: unknown): IteratorResult<void> => {
    reading = undefined
    ended = true
    failure = { error }
    return TAKEN
  }

  /** Takes the next chunk into the answer's JSON: every reader that asks meanwhile shares the one read. */
  const readChunk = (): Promise<IteratorResult<void>> => {
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

  // A reader: each value `find` finds in the answer so far, reading chunks while it finds none; at
  // the end, the entity's error if any. Its first look reads nothing (other readers may have read
  // chunks), nor does the look after a value (`lookAgain`: a chunk may hold more than one).
  const reader = <V>(find: (lookAgain: () => void) => V | undefined | Promise<V | undefined>) => {
    let again = true
    const lookAgain = () => (again = true)
    const looks: AsyncIterator<void> = {
      next() {
        if (!again) return ended ? Promise.resolve(DONE) : readChunk()
        again = false
        return Promise.resolve(TAKEN)
      },
      return: () => stop().then(() => DONE),
    }
    return streamStage<void, V>({
      open: () => ({ [Symbol.asyncIterator]: () => looks }),
      chunk: () => find(lookAgain),
      end: async () => void (await stream.entity),
    })
  }

  const stream: PartialEntityStream<T> = {
    get entity() {
      return (entity ??= settle())
    },

    [Symbol.asyncIterator]() {
      let seenCall = 0
      let version = -1
      let shown = 0
      // After a value, nothing new shows before the next chunk: no look again.
      return reader((): DeepPartial<T> | undefined => {
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
        seenCall = json.call
        version = parser.version
        return parser.value as DeepPartial<T> | undefined
      })
    },

    elements() {
      let seenCall = 0
      let next = 0
      return {
        [Symbol.asyncIterator]: () =>
          reader(async (lookAgain): Promise<Item | undefined> => {
            if (newCall) return undefined
            if (seenCall !== json.call) [seenCall, next] = [json.call, 0]
            json.parse()
            const { elements } = json
            while (next < elements.length) {
              const element = elements[next++]
              // An item is valid when the schema finds nothing wrong inside it as the array's only item.
              const validation = await schema.validate([element])
              if (validation.ok) return (lookAgain(), (validation.value as Item[])[0]!)
              if (!validation.issues.some((issue) => issue.path.startsWith('/0'))) return (lookAgain(), element as Item)
            }
            return undefined
          }),
      }
    },
  }
  return stream
}
