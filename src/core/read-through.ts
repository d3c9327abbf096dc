/**
 * A streamed chunk crosses several hand-written iterators on its way to the caller (the terminal's
 * mapping, the observer's watch, the tool loop, the abort guard). Each one that turns a result of
 * the iterator below into its own result with a synchronous step offers [READ_THROUGH]: its
 * reader's step then runs right after its own, in the one promise reaction of the innermost
 * source, instead of a promise and a microtask per iterator and chunk.
 */
export const READ_THROUGH: unique symbol = Symbol('advisor-chain.readThrough')

export type OnStep<T, U> = (result: IteratorResult<T>) => U | Promise<U>
export type OnError<U> = (error: unknown) => U | Promise<U>

/** An iterator whose next result a reader may take through it in the reaction of the source below. */
export interface ReadThrough<T> {
  /** The same as `next().then(onStep, onError)`, without a promise of this iterator's own. */
  [READ_THROUGH]<U>(onStep: OnStep<T, U>, onError: OnError<U>): Promise<U>
}

/** `iterator.next().then(onStep, onError)`, through the iterator when it offers to be read through. */
export function readStep<T, U>(iterator: AsyncIterator<T>, onStep: OnStep<T, U>, onError: OnError<U>): Promise<U> {
  const through = (iterator as Partial<ReadThrough<T>>)[READ_THROUGH]
  return through ? (through.call(iterator, onStep, onError) as Promise<U>) : iterator.next().then(onStep, onError)
}

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
