/** How long a reader may leave a chunk unasked while another turn waits. */
const READER_IDLE_MS = 500

/**
 * A stream stage's watch on its reader while another turn waits (see StreamReader): a reader that
 * from then on leaves a chunk unasked for half a second dropped the iterator, and `left` runs.
 */
export class ReaderWatch {
  readonly #left: () => void
  #waited = false
  #idle: ReturnType<typeof setTimeout> | undefined

  constructor(left: () => void) {
    this.#left = left
  }

  /** Another turn waits (false: none any more); `idle`: the reader has no read on its way. */
  waitedFor(waiting: boolean, idle: boolean): void {
    this.#waited = waiting
    if (!waiting) this.asked()
    else if (idle) this.answered()
  }

  /** The reader asked for a chunk: it has not left. */
  asked(): void {
    if (this.#idle === undefined) return
    clearTimeout(this.#idle)
    this.#idle = undefined
  }

  /** The reader has every chunk it asked for: from now on it may have left. */
  answered(): void {
    if (this.#waited && this.#idle === undefined) this.#idle = setTimeout(this.#left, READER_IDLE_MS)
  }

  /** The stream ended: nothing to watch. */
  stop(): void {
    this.#waited = false
    this.asked()
  }
}
