import { abortError, followedSignals } from './abort'

/** What follows a source that ended: the end of the stream, another source to read on, or last chunks. */
export type StageNext<In, Out> = void | { readonly source: AsyncIterable<In> } | { readonly last: readonly Out[] }

/**
 * One stream layer: its domain logic as a few steps, run by `streamStage`. Every step may throw;
 * an error of `open`, `chunk`, `end` or the source goes to `fail`, which recovers or rethrows.
 */
export interface StreamLayer<In, Out = In> {
  /** Opens the source, on the first read: an error of setting up surfaces from iteration. */
  open(): AsyncIterable<In> | Promise<AsyncIterable<In>>
  /** What the reader gets for a chunk: a chunk, undefined to skip it, or a promise of either. Default: the chunk. */
  chunk?(chunk: In): Out | undefined | Promise<Out | undefined>
  /** The source ended. Default: the stream ends. */
  end?(): StageNext<In, Out> | Promise<StageNext<In, Out>>
  /** The source or a step failed: recover with a next, or throw. Default: rethrow. */
  fail?(error: unknown): StageNext<In, Out> | Promise<StageNext<In, Out>>
  /** The reader stopped before the end (`return()`); the source is stopped right after. */
  stop?(): void
  /** A pending read rejects with an AbortError the moment this signal aborts (the caller's guard). */
  readonly signal?: AbortSignal
}

/**
 * A stream written as a layer (see StreamLayer). Every layer of the chain's stream is one: the
 * terminal, the observer, the tool loop, memory, retries, approvals... A stage reading another
 * stage reads through it: a chunk passes all the layers' steps in the one promise reaction of the
 * innermost source, not a promise and a tick per layer. Unlike an async generator, `return()`
 * reaches the source at once, even while a read is pending.
 */
export function streamStage<In, Out = In>(layer: StreamLayer<In, Out>): AsyncIterableIterator<Out> {
  return new Stage(layer)
}

/** A stream of the items given. */
export function streamOf<T>(...items: T[]): AsyncIterableIterator<T> {
  return new Stage<T, T>({ open: () => NOTHING, end: () => ({ last: items }) })
}

type ReaderStep<T> = (result: IteratorResult<T>) => unknown
type ReaderError = (error: unknown) => unknown
type Own<Out> = IteratorResult<Out> | Promise<IteratorResult<Out>>

const SKIP: unique symbol = Symbol('skip')
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined })
const NOTHING: AsyncIterable<never> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(DONE) }) }
const passOn = <T>(result: T): T => result
const rethrow = (error: unknown): never => {
  throw error
}

class Stage<In, Out> implements AsyncIterableIterator<Out> {
  readonly #layer: StreamLayer<In, Out>
  #source: AsyncIterator<In> | undefined
  #finished = false
  /** Chunks to give before the end (`{ last }`). */
  #last: Out[] | undefined
  // The reader's step and error handler, and each composed with this stage's own: made again only
  // when the reader changes (a reader passes the same pair on every read).
  #readerStep: ReaderStep<Out> | undefined
  #readerError: ReaderError | undefined
  #step: ReaderStep<In> = passOn
  #error: ReaderError = rethrow
  // Reads of `next()` go one at a time; later ones wait in line. `asked` counts them all.
  #asking = false
  #inLine: Array<{ resolve: (result: IteratorResult<Out>) => void; reject: (error: unknown) => void }> | undefined
  #asked = 0
  // With a signal: the read on its way settles through these, so that an abort rejects it at once.
  #resolve: ((result: IteratorResult<Out>) => void) | undefined
  #reject: ((error: unknown) => void) | undefined
  /** The signal aborted and no read has said so yet. */
  #aborted = false
  /** In the layer's `fail`: an abort it causes (the guard cancels the call) must not hide the failure. */
  #failing = false

  constructor(layer: StreamLayer<In, Out>) {
    this.#layer = layer
    const signal = layer.signal
    if (signal) {
      callers.set(signal, this.#caller())
      // An aborted signal fires no more events: one aborted already is seen here.
      this.#aborted = signal.aborted
      signal.addEventListener('abort', this.#onAbort, { once: true })
    }
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<Out>> {
    if (this.#asking)
      return new Promise((resolve, reject) => {
        ;(this.#inLine ??= []).push({ resolve, reject })
      })
    return this.#ask()
  }

  #ask(): Promise<IteratorResult<Out>> {
    this.#asking = true
    this.#asked++
    const signal = this.#layer.signal
    if (!signal) return this.#read(this.#answered, this.#failed) as Promise<IteratorResult<Out>>
    if (this.#aborted) {
      this.#aborted = false
      this.#finish()
      this.#nextInLine()
      return Promise.reject(abortError(signal))
    }
    if (this.#finished && !this.#last) return Promise.resolve(this.#answered(DONE))
    const pending = new Promise<IteratorResult<Out>>(this.#capture)
    void this.#read(this.#settle, this.#rejectPending)
    return pending
  }

  readonly #answered = (result: IteratorResult<Out>): IteratorResult<Out> => {
    this.#nextInLine()
    return result
  }

  readonly #failed = (error: unknown): never => {
    this.#nextInLine()
    throw error
  }

  /** The read on its way has settled: the next in line goes now, in order. */
  #nextInLine(): void {
    const waiting = this.#inLine?.shift()
    if (!waiting) {
      this.#asking = false
      return
    }
    this.#ask().then(waiting.resolve, waiting.reject)
  }

  /** What the stage of a caller's stream tells of its reader. */
  #caller(): CallerStream {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the stage behind the caller's view
    const stage = this
    return {
      get waiting() {
        return stage.#asking
      },
      get asked() {
        return stage.#asked
      },
      stop: () => void stage.return(),
    }
  }

  return(): Promise<IteratorResult<Out>> {
    this.#last = undefined
    if (this.#finished) return Promise.resolve(DONE)
    this.#rejectReads(abortError(this.#layer.signal))
    this.#finish()
    let failure: { error: unknown } | undefined
    try {
      this.#layer.stop?.()
    } catch (error) {
      failure = { error }
    }
    const stopped = this.#source?.return?.()
    // The caller's guard never waits: a source that ignores the stop must not hold the caller.
    const waited = !stopped || this.#layer.signal ? (stopped?.catch(() => {}), undefined) : stopped
    const done = (): IteratorResult<Out> => {
      if (failure) throw failure.error
      return DONE
    }
    return waited ? waited.then(done, done) : Promise.resolve().then(done)
  }

  /** `next().then(onStep, onError)`, through this stage to its source when that is a stage too. */
  #read(onStep: ReaderStep<Out>, onError: ReaderError): Promise<unknown> {
    const last = this.#last
    if (last) {
      const value = last.shift()!
      if (last.length === 0) this.#last = undefined
      return Promise.resolve({ done: false, value }).then(onStep, onError)
    }
    if (this.#finished) return Promise.resolve(DONE).then(onStep, onError)
    if (!this.#source) {
      let opened: AsyncIterable<In> | Promise<AsyncIterable<In>>
      try {
        opened = this.#layer.open()
      } catch (error) {
        return this.#settled(() => this.#failure(error), onStep, onError)
      }
      if (opened instanceof Promise) {
        return opened.then(this.#opened, this.#ownError).then(
          (result) =>
            // Opened: read on through the source; ended or failed while opening: that result.
            result === undefined ? this.#read(onStep, onError) : onStep(result),
          onError,
        )
      }
      this.#use(opened)
    }
    if (onStep !== this.#readerStep || onError !== this.#readerError) this.#compose(onStep, onError)
    return Stage.#readFrom(this.#source!, this.#step, this.#error)
  }

  static #readFrom<T>(source: AsyncIterator<T>, onStep: ReaderStep<T>, onError: ReaderError): Promise<unknown> {
    return source instanceof Stage ? source.#read(onStep, onError) : source.next().then(onStep, onError)
  }

  /** This stage's steps followed by the reader's, in the same reaction. */
  #compose(onStep: ReaderStep<Out>, onError: ReaderError): void {
    this.#readerStep = onStep
    this.#readerError = onError
    const step = (result: IteratorResult<In>): unknown => {
      let own: Own<Out> | typeof SKIP
      try {
        own = this.#take(result)
      } catch (error) {
        try {
          own = this.#failure(error)
        } catch (final) {
          return onError(final)
        }
      }
      if (own === SKIP) return Stage.#readFrom(this.#source!, step, failed)
      return own instanceof Promise ? own.then(onStep, onError) : onStep(own)
    }
    const failed = (error: unknown): unknown => {
      let own: Own<Out>
      try {
        own = this.#failure(error)
      } catch (final) {
        return onError(final)
      }
      return own instanceof Promise ? own.then(onStep, onError) : onStep(own)
    }
    this.#step = step
    this.#error = failed
  }

  /** What this stage makes of a result of its source. */
  #take(result: IteratorResult<In>): Own<Out> | typeof SKIP {
    // Stopped while the read was pending.
    if (this.#finished) return DONE
    if (result.done) return this.#ended()
    const chunk = result.value
    const layer = this.#layer
    if (!layer.chunk) return result as unknown as IteratorResult<Out>
    const out = layer.chunk(chunk)
    if (out === undefined) return SKIP
    if ((out as unknown) === chunk) return result as unknown as IteratorResult<Out>
    if (out instanceof Promise) return out.then(this.#mapped, this.#ownError)
    return { done: false, value: out }
  }

  #ended(): Own<Out> {
    const layer = this.#layer
    if (!layer.end) {
      this.#finish()
      return DONE
    }
    const next = layer.end()
    return next instanceof Promise ? next.then(this.#continue, this.#ownError) : this.#continue(next)
  }

  #failure(error: unknown): Own<Out> {
    const layer = this.#layer
    if (this.#finished || !layer.fail) {
      this.#finish()
      throw error
    }
    let next: StageNext<In, Out> | Promise<StageNext<In, Out>>
    this.#failing = true
    try {
      next = layer.fail(error)
    } catch (thrown) {
      this.#finish()
      throw thrown
    } finally {
      this.#failing = false
    }
    return next instanceof Promise ? next.then(this.#continue, this.#finalError) : this.#continue(next)
  }

  readonly #continue = (next: StageNext<In, Out>): Own<Out> => {
    if (this.#finished) return DONE
    if (!next) {
      this.#finish()
      return DONE
    }
    if ('source' in next) {
      this.#use(next.source)
      return this.#readOwn()
    }
    this.#finish()
    if (next.last.length === 0) return DONE
    const [first, ...rest] = next.last
    if (rest.length > 0) this.#last = rest
    return { done: false, value: first! }
  }

  #use(source: AsyncIterable<In>): void {
    this.#source = source[Symbol.asyncIterator]()
  }

  /** The source opened after a while: undefined to read on, or the result it came to. */
  readonly #opened = (source: AsyncIterable<In>): IteratorResult<Out> | undefined => {
    if (this.#finished) {
      void source[Symbol.asyncIterator]()
        .return?.()
        ?.catch(() => {})
      return DONE
    }
    this.#use(source)
    return undefined
  }

  /** Steps of this stage alone, for the reads it makes itself (a skipped chunk read again, a new source). */
  readonly #ownStep = (result: IteratorResult<In>): Own<Out> => {
    let own: Own<Out> | typeof SKIP
    try {
      own = this.#take(result)
    } catch (error) {
      return this.#failure(error)
    }
    return own === SKIP ? this.#readOwn() : own
  }

  readonly #ownError = (error: unknown): Own<Out> => this.#failure(error)

  readonly #finalError = (error: unknown): never => {
    this.#finish()
    throw error
  }

  readonly #mapped = (out: Out | undefined): Own<Out> =>
    this.#finished ? DONE : out === undefined ? this.#readOwn() : { done: false, value: out }

  #readOwn(): Promise<IteratorResult<Out>> {
    return Stage.#readFrom(this.#source!, this.#ownStep, this.#ownError) as Promise<IteratorResult<Out>>
  }

  #settled(own: () => Own<Out>, onStep: ReaderStep<Out>, onError: ReaderError): Promise<unknown> {
    try {
      return Promise.resolve(own()).then(onStep, onError)
    } catch (error) {
      return Promise.reject(error).then(undefined, onError)
    }
  }

  #finish(): void {
    this.#finished = true
    this.#layer.signal?.removeEventListener('abort', this.#onAbort)
  }

  readonly #capture = (resolve: (result: IteratorResult<Out>) => void, reject: (error: unknown) => void): void => {
    this.#resolve = resolve
    this.#reject = reject
  }

  readonly #settle = (result: IteratorResult<Out>): void => {
    const resolve = this.#resolve
    this.#resolve = this.#reject = undefined
    resolve?.(this.#answered(result))
  }

  readonly #rejectPending = (error: unknown): void => {
    const reject = this.#reject
    this.#resolve = this.#reject = undefined
    if (!reject) return
    this.#nextInLine()
    reject(error)
  }

  /** Rejects the read on its way and every read in line. */
  #rejectReads(error: unknown): void {
    const reject = this.#reject
    const inLine = this.#inLine ?? []
    this.#resolve = this.#reject = this.#inLine = undefined
    this.#asking = false
    reject?.(error)
    for (const waiting of inLine) waiting.reject(error)
  }

  // The caller aborted: a read on its way rejects at once (with none, the next read does) and the
  // layers stop now, so that every one of them gives back what it holds (a conversation's turn).
  readonly #onAbort = (): void => {
    if (this.#failing) return
    const signal = this.#layer.signal
    if (this.#reject) this.#rejectReads(abortError(signal))
    else this.#aborted = true
    void this.return().catch(() => {})
  }
}

/** The stages of callers' streams, by the signal each was made with. */
const callers = new WeakMap<AbortSignal, CallerStream>()

/** What a caller's stream tells of its reader (see `callerStream`). */
export interface CallerStream {
  /** Whether the reader waits for a chunk now. */
  readonly waiting: boolean
  /** How many chunks the reader asked for so far: a reader that left asks for no more. */
  readonly asked: number
  /** Stops the stream, as the reader's `return()` would. */
  stop(): void
}

/** The caller's stream that `signal` was made for (a stage with a `signal`), if any. */
export function callerStream(signal: AbortSignal | undefined): CallerStream | undefined {
  if (!signal) return undefined
  // The tool loop's own signal follows the caller's alone.
  const followed = followedSignals(signal)
  return callers.get(signal) ?? (followed.length === 1 ? callers.get(followed[0]!) : undefined)
}
