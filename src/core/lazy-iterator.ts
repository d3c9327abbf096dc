import {
  AGGREGATOR,
  READ_THROUGH,
  aggregatorOf,
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
  // Looked up once: a reader's lookup per chunk sees every kind of iterator and is slow.
  let through: ReadThrough<T>[typeof READ_THROUGH] | undefined
  const ready = () =>
    (loading ??= load().then((iterator) => {
      through = (iterator as Partial<ReadThrough<T>>)[READ_THROUGH]
      return (loaded = iterator)
    }))
  return {
    [Symbol.asyncIterator]() {
      return this
    },
    next() {
      return loaded ? loaded.next() : ready().then((iterator) => iterator.next())
    },
    [READ_THROUGH]<U>(onStep: OnStep<T, U>, onError: OnError<U>): Promise<U> {
      return through ? (through.call(loaded, onStep, onError) as Promise<U>) : this.next().then(onStep, onError)
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
