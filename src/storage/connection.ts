import { openIndexedDB, type OpenIndexedDB } from './open'

/** Which database a store keeps its data in, and how to create or move its stores forward. */
export type DatabaseSpec = Omit<OpenIndexedDB, 'failure' | 'onClose'>

/**
 * A store's one connection to its database: opened on the first use, and again on the next use
 * after a failed open, a close, or another tab that upgrades or deletes the database.
 */
export class IndexedDBConnection {
  readonly #options: DatabaseSpec
  readonly #onClose: () => void
  #db: Promise<IDBDatabase> | undefined

  /** `onClose` is told when another tab takes the database away (the store drops what it cached). */
  constructor(options: DatabaseSpec, onClose: () => void = () => {}) {
    this.#options = options
    this.#onClose = onClose
  }

  get name(): string {
    return this.#options.name
  }

  /** The open database; `failure` is the store's own error for one it cannot open. */
  open(failure: OpenIndexedDB['failure']): Promise<IDBDatabase> {
    if (this.#db) return this.#db
    const opening = openIndexedDB({
      ...this.#options,
      failure,
      onClose: () => {
        this.#db = undefined
        this.#onClose()
      },
    })
    opening.catch(() => this.#db === opening && (this.#db = undefined))
    return (this.#db = opening)
  }

  /**
   * Runs `step` in one transaction over `stores`; resolves with its result once the transaction
   * commits. A step that rejects aborts it, so nothing of it is written. The store's own errors:
   * `errors.open` for a database it cannot open, `errors.refused` for a transaction that could not
   * start or was aborted (its DOMException, or null), `errors.step` for what the step rejected with.
   */
  async transaction<T>(
    stores: string[],
    mode: IDBTransactionMode,
    step: (tx: IDBTransaction) => Promise<T>,
    errors: {
      open: OpenIndexedDB['failure']
      refused: (error: unknown) => Error
      step: (error: unknown) => Error
    },
  ): Promise<T> {
    const db = await this.open(errors.open)
    return new Promise<T>((resolve, reject) => {
      let tx: IDBTransaction
      try {
        tx = db.transaction(stores, mode)
      } catch (error) {
        // The connection closed under us (a newer tab upgrades): the next use reopens it.
        this.forget()
        return reject(errors.refused(error))
      }
      let result: T
      let failure: Error | undefined
      tx.oncomplete = () => resolve(result)
      tx.onabort = () => reject(failure ?? errors.refused(tx.error))
      step(tx).then(
        (value) => (result = value),
        (error: unknown) => {
          failure ??= errors.step(error)
          try {
            tx.abort()
          } catch {
            // Already aborted by the failed request.
          }
        },
      )
    })
  }

  /** Forgets a connection that closed under the store (a transaction could not start): the next use reopens it. */
  forget(): void {
    this.#db = undefined
  }

  /** Closes the connection; the next use opens it again. */
  async close(): Promise<void> {
    const db = this.#db
    this.#db = undefined
    ;(await db?.catch(() => undefined))?.close()
  }
}
