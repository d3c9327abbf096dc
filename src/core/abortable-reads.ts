/**
 * The reads a stream stage's caller has pending, rejected at once when its signal aborts or it
 * returns (see StreamLayer.signal), even while the source ignores the signal.
 */
export class AbortableReads {
  readonly #pending = new Set<(error: unknown) => void>()

  /** The read, rejected at once by `reject`. */
  add<T>(read: Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.#pending.add(reject)
      const settled = () => this.#pending.delete(reject)
      read.then(
        (result) => (settled(), resolve(result)),
        (error: unknown) => (settled(), reject(error)),
      )
    })
  }

  /** Rejects every pending read with `error`; false when none was pending. */
  reject(error: unknown): boolean {
    const any = this.#pending.size > 0
    for (const reject of this.#pending) reject(error)
    this.#pending.clear()
    return any
  }
}
