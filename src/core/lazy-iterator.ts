import {
  AGGREGATOR,
  READ_THROUGH,
  aggregatorOf,
  readStep,
  type Aggregating,
  type OnError,
  type OnStep,
  type ReadThrough,
} from './read-through'

/**
 * An async iterator whose implementation is loaded by its first call, so code that only a stream
 * needs ships to the apps that stream, in a chunk of its own. Once loaded, every call goes
 * straight to the loaded iterator (a reader reads through to it, and takes its aggregator): a chunk
 * costs no more than before.
 */
export function lazyIterator<T>(
  load: () => Promise<AsyncIterator<T>>,
): AsyncIterableIterator<T> & ReadThrough<T> & Aggregating {
  let loading: Promise<AsyncIterator<T>> | undefined
  let loaded: AsyncIterator<T> | undefined
  const ready = () => (loading ??= load().then((iterator) => (loaded = iterator)))
  return {
    [Symbol.asyncIterator]() {
      return this
    },
    next() {
      return loaded ? loaded.next() : ready().then((iterator) => iterator.next())
    },
    [READ_THROUGH]<U>(onStep: OnStep<T, U>, onError: OnError<U>): Promise<U> {
      return loaded ? readStep(loaded, onStep, onError) : this.next().then(onStep, onError)
    },
    [AGGREGATOR]() {
      return loaded && aggregatorOf(loaded)
    },
    // Also before the first chunk: the loaded iterator decides what stopping early means.
    return(value?: unknown) {
      const stop = (iterator: AsyncIterator<T>) =>
        iterator.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined })
      return loaded ? stop(loaded) : ready().then(stop)
    },
  }
}
