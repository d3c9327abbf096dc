/** How a store opens its IndexedDB database: see `openIndexedDB`. */
export interface OpenIndexedDB {
  /** The IndexedDB to use; `undefined` is the page's (`globalThis.indexedDB`). */
  factory: IDBFactory | undefined
  name: string
  version: number
  /** Creates or moves the stores forward from `oldVersion` (0 for a new database). */
  upgrade: (db: IDBDatabase, tx: IDBTransaction, oldVersion: number) => void
  /** The store's own error for a database it cannot open. */
  failure: (why: string, cause?: unknown) => Error
  /** What to use instead where there is no IndexedDB, e.g. "use InMemoryVectorStore". */
  instead: string
  /** Another tab upgrades or deletes the database: the connection is closed, the store forgets it. */
  onClose: () => void
}

/**
 * Opens a store's database. A failure says why (no IndexedDB here, a newer version of the app
 * upgraded it, the browser refused); a connection yields to another tab that upgrades or deletes
 * the database, and the store opens it again on its next use.
 */
export function openIndexedDB(options: OpenIndexedDB): Promise<IDBDatabase> {
  const { name, failure } = options
  return new Promise<IDBDatabase>((resolve, reject) => {
    const factory = options.factory ?? globalThis.indexedDB
    if (!factory)
      return reject(
        failure(`This environment has no IndexedDB (a server, or a private mode without storage); ${options.instead}`),
      )
    let request: IDBOpenDBRequest
    try {
      request = factory.open(name, options.version)
    } catch (error) {
      return reject(failure(`Could not open IndexedDB '${name}': ${String(error)}`, error))
    }
    request.onupgradeneeded = (event) => options.upgrade(request.result, request.transaction!, event.oldVersion)
    request.onblocked = () => console.warn(`IndexedDB '${name}' waits for another tab to close its older connection`)
    request.onerror = () => {
      const newer =
        request.error?.name === 'VersionError' ? ' (a newer version of this app upgraded it: reload the page)' : ''
      reject(
        failure(
          `Could not open IndexedDB '${name}': ${request.error?.message ?? 'unknown error'}${newer}`,
          request.error,
        ),
      )
    }
    request.onsuccess = () => {
      const db = request.result
      db.onversionchange = () => {
        db.close()
        options.onClose()
      }
      resolve(db)
    }
  })
}
