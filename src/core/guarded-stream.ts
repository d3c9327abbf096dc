import { followingSignal, internalSignal } from './abort'
import { streamStage, type StreamReader } from './stream-stage'

/**
 * The iterable a caller reads from `client.prompt().stream()`. It opens the chain on the first
 * `next()` (so setup errors surface from iteration, not creation) with a signal that aborts when
 * the caller's signal does or the caller stops early (`return()`), which cancels the model
 * request and running tools. A pending `next()` rejects with an AbortError the moment either
 * happens, even if the source ignores the signal; `return()` never waits. `open` is told the
 * caller's reader, for a turn that holds a conversation (see StreamReader). `pick` maps each item
 * and skips those it turns into undefined.
 */
export function guardedStream<T, U>(
  open: (signal: AbortSignal, reader: StreamReader) => AsyncIterable<T>,
  outer: AbortSignal | undefined,
  pick: (item: T) => U | undefined,
): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator]() {
      const stop = new AbortController()
      const signal = outer ? followingSignal([outer, internalSignal(stop)]) : internalSignal(stop)
      return streamStage<T, U>({
        signal,
        open: (reader) => open(signal, reader),
        chunk: pick,
        fail(error) {
          stop.abort()
          throw error
        },
        stop: () => stop.abort(),
      })
    },
  }
}
