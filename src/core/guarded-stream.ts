import { abortError } from './abort'
import { readStep } from './read-through'

/**
 * The iterator a caller reads from `client.prompt().stream()`. It opens the chain on the first
 * `next()` (so setup errors surface from iteration, not creation) with a signal that aborts when
 * the caller's signal does or the caller stops early (`return()`), which cancels the model
 * request and running tools. A pending `next()` rejects with an AbortError the moment either
 * happens, even if the source ignores the signal; `return()` never waits. `pick` maps each item
 * and skips those it turns into undefined. It reads through the chain's iterators (see READ_THROUGH).
 */
export function guardedStream<T, U>(
  open: (signal: AbortSignal) => AsyncIterable<T>,
  signal: AbortSignal | undefined,
  pick: (item: T) => U | undefined,
): AsyncIterable<U> {
  return { [Symbol.asyncIterator]: () => new GuardedIterator(open, signal, pick) }
}

class GuardedIterator<T, U> implements AsyncIterator<U> {
  readonly #stop = new AbortController()
  readonly #signal: AbortSignal
  #source: AsyncIterator<T> | undefined
  #resolve: ((step: IteratorResult<U>) => void) | undefined
  #reject: ((error: unknown) => void) | undefined
  #finished = false
  /** Set by the abort event, so a read does not ask the signal (in a page, a call into the browser per chunk). */
  #aborted: boolean

  constructor(
    private readonly open: (signal: AbortSignal) => AsyncIterable<T>,
    outer: AbortSignal | undefined,
    private readonly pick: (item: T) => U | undefined,
  ) {
    this.#signal = outer ? AbortSignal.any([outer, this.#stop.signal]) : this.#stop.signal
    // An aborted signal fires no more events: an outer signal aborted already is seen here.
    this.#aborted = this.#signal.aborted
    this.#signal.addEventListener('abort', this.#onAbort, { once: true })
  }

  next(): Promise<IteratorResult<U>> {
    if (this.#finished) return Promise.resolve({ done: true, value: undefined })
    try {
      if (this.#aborted) throw abortError(this.#signal)
      this.#source ??= this.open(this.#signal)[Symbol.asyncIterator]()
    } catch (error) {
      this.#finish()
      return Promise.reject(error)
    }
    const pending = new Promise<IteratorResult<U>>(this.#capture)
    void readStep(this.#source, this.#onStep, this.#onError)
    return pending
  }

  return(): Promise<IteratorResult<U>> {
    if (!this.#finished) {
      const reject = this.#reject
      this.#stop.abort()
      this.#finish()
      reject?.(abortError(this.#stop.signal))
      this.#source?.return?.().catch(() => {})
    }
    return Promise.resolve({ done: true, value: undefined })
  }

  readonly #capture = (resolve: (step: IteratorResult<U>) => void, reject: (error: unknown) => void): void => {
    this.#resolve = resolve
    this.#reject = reject
  }

  readonly #onStep = (step: IteratorResult<T>): void => {
    const resolve = this.#resolve
    if (!resolve) return
    if (step.done) {
      this.#finish()
      resolve({ done: true, value: undefined })
      return
    }
    const picked = this.pick(step.value)
    if (picked === undefined) {
      void readStep(this.#source!, this.#onStep, this.#onError)
      return
    }
    this.#resolve = this.#reject = undefined
    resolve({ done: false, value: picked })
  }

  readonly #onError = (error: unknown): void => {
    const reject = this.#reject
    this.#finish()
    this.#stop.abort()
    reject?.(error)
  }

  // With no read pending, the next read sees the aborted signal and rejects.
  readonly #onAbort = (): void => {
    this.#aborted = true
    const reject = this.#reject
    if (!reject) return
    this.#finish()
    reject(abortError(this.#signal))
  }

  #finish(): void {
    this.#finished = true
    this.#resolve = undefined
    this.#reject = undefined
    this.#signal.removeEventListener('abort', this.#onAbort)
  }
}
