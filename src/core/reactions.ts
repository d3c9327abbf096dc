import type { OnError, OnStep } from './read-through'

// Apart from read-through.ts: only the iterators that load with a stream need it.
/**
 * An iterator's own step and error handler, each followed by its reader's: `step` and `error` read
 * the iterator below as `next().then(own step, own error).then(reader's step, reader's error)`
 * would, in one reaction. Made again only when the reader changes (a reader passes the same pair
 * on every read).
 */
export class Reactions<S, T> {
  step: OnStep<S, unknown> = () => undefined
  error: OnError<unknown> = () => undefined
  #readerStep: OnStep<T, unknown> | undefined
  #readerError: OnError<unknown> | undefined

  /** `ownError` undefined: the iterator lets errors through as they are. */
  constructor(
    private readonly ownStep: OnStep<S, IteratorResult<T>>,
    private readonly ownError?: OnError<IteratorResult<T>>,
  ) {}

  /** Sets `step` and `error` for this reader. */
  followedBy(onStep: OnStep<T, unknown>, onError: OnError<unknown>): this {
    if (onStep !== this.#readerStep || onError !== this.#readerError) {
      const { ownStep, ownError } = this
      this.#readerStep = onStep
      this.#readerError = onError
      this.step = (result) => follow(ownStep, result, onStep, onError)
      this.error = ownError ? (failure) => follow(ownError, failure, onStep, onError) : onError
    }
    return this
  }
}

/** `own(value)`, then the reader's step with what it gave, or the reader's error handler with what it threw. */
function follow<V, R, U>(
  own: (value: V) => R | Promise<R>,
  value: V,
  onStep: (result: R) => U | Promise<U>,
  onError: OnError<U>,
): U | Promise<U> {
  let mine: R | Promise<R>
  try {
    mine = own(value)
  } catch (error) {
    return onError(error)
  }
  return mine instanceof Promise ? mine.then(onStep, onError) : onStep(mine)
}
