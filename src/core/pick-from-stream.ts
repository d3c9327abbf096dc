import { Reactions } from './reactions'
import { READ_THROUGH, readStep, type OnError, type OnStep, type ReadThrough } from './read-through'

/**
 * Maps a stream, skipping items `pick` turns into undefined. Unlike an async generator, `return()`
 * reaches the source at once, even while a `next()` is pending; a reader may read through it.
 */
export function pickFromStream<T, U>(source: AsyncIterable<T>, pick: (item: T) => U | undefined): AsyncIterable<U> {
  return { [Symbol.asyncIterator]: () => new PickingIterator(source[Symbol.asyncIterator](), pick) }
}

class PickingIterator<T, U> implements AsyncIterator<U>, ReadThrough<U> {
  readonly #reactions: Reactions<T, U>

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly pick: (item: T) => U | undefined,
  ) {
    this.#reactions = new Reactions(this.#step)
  }

  next(): Promise<IteratorResult<U>> {
    return this.source.next().then(this.#step)
  }

  [READ_THROUGH]<V>(onStep: OnStep<U, V>, onError: OnError<V>): Promise<V> {
    const reactions = this.#reactions.followedBy(onStep as OnStep<U, unknown>, onError)
    return readStep(this.source, reactions.step, reactions.error) as Promise<V>
  }

  async return(): Promise<IteratorResult<U>> {
    await this.source.return?.()
    return { done: true, value: undefined }
  }

  readonly #step = (result: IteratorResult<T>): IteratorResult<U> | Promise<IteratorResult<U>> => {
    if (result.done) return { done: true, value: undefined }
    const picked = this.pick(result.value)
    return picked === undefined ? this.source.next().then(this.#step) : { done: false, value: picked }
  }
}
