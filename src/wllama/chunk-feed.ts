/**
 * Chunks that a callback pushes, read one at a time; the producer's end or failure settles the
 * reader. (wllama's own async iterator can reject a promise nobody awaits when a stream is
 * aborted; with its callback form every outcome has a reader.)
 */
export class ChunkFeed<T> {
  #queue: T[] = []
  #ended = false
  #failure: { error: unknown } | undefined
  #wake: (() => void) | undefined

  push(chunk: T): void {
    this.#queue.push(chunk)
    this.#wake?.()
  }

  end(failure?: { error: unknown }): void {
    this.#ended = true
    this.#failure = failure
    this.#wake?.()
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    for (;;) {
      if (this.#queue.length > 0) return { done: false, value: this.#queue.shift()! }
      if (this.#failure) throw this.#failure.error
      if (this.#ended) return { done: true, value: undefined }
      await new Promise<void>((resolve) => (this.#wake = resolve))
      this.#wake = undefined
    }
  }
}
