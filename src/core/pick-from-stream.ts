/**
 * Maps a stream, skipping items `pick` turns into undefined. Unlike an async generator, `return()`
 * reaches the source at once, even while a `next()` is pending.
 */
export function pickFromStream<T, U>(source: AsyncIterable<T>, pick: (item: T) => U | undefined): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<U> {
      const iterator = source[Symbol.asyncIterator]()
      const step = (result: IteratorResult<T>): IteratorResult<U> | Promise<IteratorResult<U>> => {
        if (result.done) return { done: true, value: undefined }
        const picked = pick(result.value)
        return picked === undefined ? iterator.next().then(step) : { done: false, value: picked }
      }
      return {
        next: () => iterator.next().then(step),
        return: async () => {
          await iterator.return?.()
          return { done: true, value: undefined }
        },
      }
    },
  }
}
