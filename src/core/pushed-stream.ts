import { DONE } from './stream-stage'

/** Where a pushed stream's items come from (see `pushedStream`). */
export interface PushSource {
  /** Asked for more when a read finds nothing pushed, one pull at a time: it pushes items, ends, or both. Its error fails the stream. */
  pull(): Promise<void>
  /** The reader stopped before the end (`return()`). */
  stop?(): Promise<unknown> | void
}

/** How a push source gives its reader items. */
export interface StreamFeed<T> {
  push(item: T): void
  end(): void
}

/**
 * A stream of items pushed as they happen, for a layer whose items come from its source and also
 * from events while no chunk is on its way (a tool that starts): a push reaches a waiting read at
 * once. `start` makes the source, given the feed it pushes to. Reads settle in order; after
 * `return()` the stop's errors are no news to the reader.
 */
export function pushedStream<T>(start: (feed: StreamFeed<T>) => PushSource): AsyncIterableIterator<T> {
  return new Pushed(start)
}

class Pushed<T> implements AsyncIterableIterator<T>, StreamFeed<T> {
  readonly #source: PushSource
  readonly #items: T[] = []
  #ended = false
  #failure: { error: unknown } | undefined
  #pulling = false
  /** Wakes the read that waits for a push, the end or a failure. */
  #wake: (() => void) | undefined
  #reads = 0
  #latest: Promise<IteratorResult<T>> | undefined

  constructor(start: (feed: StreamFeed<T>) => PushSource) {
    this.#source = start(this)
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<T>> {
    // Reads go one at a time: one asked while another is on its way starts when that one settles.
    const read = this.#reads++ > 0 ? this.#latest!.then(this.#read, this.#read) : this.#read()
    this.#latest = read
    return read
  }

  /** The oldest item pushed, or the next one once the source pushed it. */
  readonly #read = async (): Promise<IteratorResult<T>> => {
    try {
      for (;;) {
        if (this.#items.length > 0) return { done: false, value: this.#items.shift()! }
        const failure = this.#failure
        this.#failure = undefined
        if (failure) throw failure.error
        if (this.#ended) return DONE
        // Listening before the pull: the source may push at once, and its wake-up must find a listener.
        const woken = new Promise<void>((resolve) => (this.#wake = resolve))
        if (!this.#pulling) this.#pull()
        await woken
      }
    } finally {
      this.#reads--
    }
  }

  #pull(): void {
    this.#pulling = true
    this.#source.pull().then(
      () => {
        this.#pulling = false
        this.#notify()
      },
      (error: unknown) => {
        this.#pulling = false
        if (!this.#ended) this.#failure = { error }
        this.#ended = true
        this.#notify()
      },
    )
  }

  push(item: T): void {
    if (this.#ended) return
    this.#items.push(item)
    this.#notify()
  }

  end(): void {
    this.#ended = true
    this.#notify()
  }

  async return(): Promise<IteratorResult<T>> {
    this.#ended = true
    this.#items.length = 0
    this.#notify()
    await this.#source.stop?.()
    return DONE
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }
}
