import { followingSignal, internalSignal } from './abort'
import { streamStage } from './stream-stage'

/**
 * The iterable a caller reads from `client.prompt().stream()`. It opens the chain on the first
 * `next()` (so setup errors surface from iteration, not creation) with a signal that aborts when
 * the caller's signal does or the caller stops early (`return()`), which cancels the model
 * request and running tools. A pending `next()` rejects with an AbortError the moment either
 * happens, even if the source ignores the signal; `return()` never waits. `pick` maps each item
 * and skips those it turns into undefined.
 */
export function guardedStream<T, U>(
  open: (signal: AbortSignal) => AsyncIterable<T>,
  outer: AbortSignal | undefined,
  pick: (item: T) => U | undefined,
): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator]() {
      const stop = new AbortController()
      const signal = outer ? followingSignal([outer, internalSignal(stop)]) : internalSignal(stop)
      return streamStage<T, U>({
        signal,
        open: () => open(signal),
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
