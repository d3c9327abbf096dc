import {
  abortError,
  LOWEST_PRECEDENCE,
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
  let waiting: Array<() => void> = []
  // The answer's JSON: the current model call's text, its number, its complete array items.
  const json = answerJson(schema, partialStrings)
  let newCall = true
  let ended = false
  let failure: { error: unknown } | undefined
  let entity: Promise<T> | undefined

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

  // One reaction per chunk (as content() has): it takes the chunk and wakes every reader waiting for one.
  const took = (step: IteratorResult<ChatClientResponse>) => {
    if (step.done) ended = true
    else take(step.value)
    wake()
  }
  const failed = (error: unknown) => {
    ended = true
    failure = { error }
    wake()
  }
  const read = () => {
    source ??= open([callStarts])[Symbol.asyncIterator]()
    source.next().then(took, failed)
  }
  const wake = () => {
    // One reader is the common case: its callback may wait again at once, so the list is emptied first.
    if (waiting.length === 1) return waiting.pop()!()
    const woken = waiting
    waiting = []
    for (const then of woken) then()
  }

  /** Reads one chunk (one read at a time, shared by every reader), then calls `then`; at once at the end. */
  const pull = (then: () => void) => {
    if (ended) return then()
    if (waiting.push(then) === 1) read()
  }

  const settle = () =>
    new Promise<void>((resolve) => {
      const loop = () => (ended ? resolve() : pull(loop))
      loop()
    }).then(() => {
      if (failure) throw failure.error
      return json.entity()
    })

  const stop = async (): Promise<IteratorResult<never>> => {
    if (!entity && !ended) {
      ended = true
      failure = { error: abortError() }
      await source?.return?.()
    }
    return { done: true, value: undefined }
  }

  // A reader: `next` gives what `step` finds, pulling chunks until it finds one; at the end, the entity's error if any.
  const reader = <V>(step: () => { value: V } | undefined | Promise<{ value: V } | undefined>): AsyncIterator<V> => ({
    next: () =>
      new Promise((resolve, reject) => {
        const after = (found: { value: V } | undefined) => {
          if (found) resolve({ done: false, value: found.value })
          else if (ended) stream.entity.then(() => resolve({ done: true, value: undefined }), reject)
          else pull(loop)
        }
        // A step never throws: the partial values' only reads the parser, the elements' is async.
        const loop = () => {
          const found = step()
          if (found instanceof Promise) found.then(after, reject)
          else after(found)
        }
        loop()
      }),
    return: stop,
  })

  const stream: PartialEntityStream<T> = {
    get entity() {
      return (entity ??= settle())
    },

    [Symbol.asyncIterator]() {
      let seenCall = 0
      let version = -1
      let shown = 0
      return reader(() => {
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
