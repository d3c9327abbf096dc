import { throwIfAborted } from '../core'
import { IndexedDBConnection, isQuotaExceeded } from '../storage'
import { isArray, type Document, type ScoredDocument } from './document'
import type { EmbeddingModel } from './embedding-model'
import { VectorIndex } from './vector-index'
import { dimensionError, embedDocuments, searchVector, type VectorSearch, type VectorStore } from './vector-store'

export interface IndexedDBVectorStoreOptions {
  /** Names the database (`advisor-chain-vectors:<name>`): one per collection of documents. */
  name: string
  /** For tests and workers: the IndexedDB to use (default `globalThis.indexedDB`). */
  indexedDB?: IDBFactory
}

const DOCUMENTS = 'documents'
const META = 'meta'
const DB_VERSION = 1

interface StoredDocument extends Document {
  vector: Float32Array
}

/**
 * A vector store on the device, in IndexedDB: it survives reloads, and every change is one
 * transaction, so tabs that share it never see half of another's change (a version number in the
 * same transaction tells each tab when to reload its in-memory index). The first document fixes
 * the dimension; a vector of another is refused.
 */
export class IndexedDBVectorStore implements VectorStore {
  readonly name: string
  readonly databaseName: string
  readonly #embedding: EmbeddingModel
  readonly #factory: IDBFactory | undefined
  readonly #connection: IndexedDBConnection
  /** The documents as of `version`, for searching; reloaded when another tab changed them. */
  #cache: { version: number; index: VectorIndex | undefined } | undefined

  constructor(embedding: EmbeddingModel, options: IndexedDBVectorStoreOptions) {
    if (typeof embedding?.embed !== 'function')
      throw new TypeError('IndexedDBVectorStore needs an embedding model: an object with embed(texts)')
    if (typeof options?.name !== 'string' || options.name.length === 0)
      throw new TypeError('IndexedDBVectorStore needs a name: { name: "my-documents" }')
    this.#embedding = embedding
    this.name = options.name
    this.databaseName = `advisor-chain-vectors:${options.name}`
    this.#factory = options.indexedDB
    this.#connection = new IndexedDBConnection(
      {
        factory: options.indexedDB,
        name: this.databaseName,
        version: DB_VERSION,
        upgrade: (db) => {
          if (!db.objectStoreNames.contains(DOCUMENTS)) db.createObjectStore(DOCUMENTS, { keyPath: 'id' })
          if (!db.objectStoreNames.contains(META)) db.createObjectStore(META)
        },
        instead: 'use InMemoryVectorStore',
      },
      () => (this.#cache = undefined),
    )
  }

  async add(documents: readonly Document[], options: { signal?: AbortSignal } = {}): Promise<void> {
    // Everything is embedded before the transaction starts: a failure half-way stores nothing.
    const embedded = await embedDocuments(this.#embedding, documents, options.signal)
    if (embedded.length === 0) return
    const dimensions = embedded[0]!.vector.length
    const db = await this.#open()
    throwIfAborted(options.signal)
    const before = this.#cache
    const version = await write(db, (tx, fail) => {
      const meta = tx.objectStore(META)
      const store = tx.objectStore(DOCUMENTS)
      const stored = meta.get('dimensions')
      stored.onsuccess = () => {
        const held = stored.result as number | undefined
        if (held !== undefined && held !== dimensions)
          return fail(
            dimensionError(
              `IndexedDB vector store '${this.name}'`,
              held,
              dimensions,
              `the embedding of '${embedded[0]!.document.id}'`,
            ),
          )
        if (held === undefined) meta.put(dimensions, 'dimensions')
        for (const { document, vector } of embedded) store.put({ ...document, vector } satisfies StoredDocument)
      }
    })
    if (before && this.#cache === before && before.version === version - 1) {
      const index = (before.index ??= new VectorIndex(dimensions))
      for (const { document, vector } of embedded) index.upsert(document, vector)
      before.version = version
    } else {
      this.#cache = undefined
    }
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (!isArray(ids)) throw new TypeError('delete() takes an array of document ids')
    if (ids.length === 0) return
    const db = await this.#open()
    const before = this.#cache
    const version = await write(db, (tx) => {
      const store = tx.objectStore(DOCUMENTS)
      for (const id of ids) store.delete(id)
    })
    if (before && this.#cache === before && before.version === version - 1) {
      for (const id of ids) before.index?.delete(id)
      before.version = version
    } else {
      this.#cache = undefined
    }
  }

  async search(query: VectorSearch): Promise<ScoredDocument[]> {
    const { vector, topK, minScore } = await searchVector(this.#embedding, query)
    const index = await this.#current()
    throwIfAborted(query.signal)
    if (!index) return []
    if (vector.length !== index.dimensions)
      throw dimensionError(`IndexedDB vector store '${this.name}'`, index.dimensions, vector.length, 'the query')
    return index.search(vector, topK, minScore, query.filter)
  }

  /** Closes the connection; the next use opens it again. */
  close(): void {
    this.#cache = undefined
    void this.#connection.close()
  }

  /** Deletes the database and every document in it. */
  async destroy(): Promise<void> {
    this.close()
    const factory = this.#factory ?? globalThis.indexedDB
    await new Promise<void>((resolve, reject) => {
      const request = factory.deleteDatabase(this.databaseName)
      request.onsuccess = () => resolve()
      request.onerror = () => reject(request.error ?? new Error(`Could not delete IndexedDB '${this.databaseName}'`))
    })
  }

  /** The index as the database holds it now: the version is read in the same transaction as the documents. */
  async #current(): Promise<VectorIndex | undefined> {
    const db = await this.#open()
    const cached = this.#cache
    const loaded = await new Promise<{ version: number; index: VectorIndex | undefined } | 'cached'>(
      (resolve, reject) => {
        const tx = db.transaction([DOCUMENTS, META], 'readonly')
        const version = tx.objectStore(META).get('version')
        let result: { version: number; index: VectorIndex | undefined } | 'cached' = 'cached'
        version.onsuccess = () => {
          const now = (version.result as number | undefined) ?? 0
          if (cached && cached.version === now) return
          const dimensions = tx.objectStore(META).get('dimensions')
          const all = tx.objectStore(DOCUMENTS).getAll()
          all.onsuccess = () => {
            const records = all.result as StoredDocument[]
            const held = dimensions.result as number | undefined
            if (held === undefined || records.length === 0) return void (result = { version: now, index: undefined })
            const index = new VectorIndex(held, records.length)
            for (const { vector, ...document } of records) index.upsert(document, vector)
            result = { version: now, index }
          }
        }
        tx.oncomplete = () => resolve(result)
        tx.onerror = () => reject(storageError(this.databaseName, tx.error))
        tx.onabort = () => reject(storageError(this.databaseName, tx.error))
      },
    )
    if (loaded === 'cached') return cached!.index
    this.#cache = loaded
    return loaded.index
  }

  #open(): Promise<IDBDatabase> {
    return this.#connection.open((why, cause) => new Error(why, { cause }))
  }
}

/**
 * One read-write transaction over documents and meta that also bumps the version; resolves with
 * the new version once committed. `fail` aborts it (nothing of it is stored) with that error.
 */
function write(db: IDBDatabase, change: (tx: IDBTransaction, fail: (error: Error) => void) => void): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const tx = db.transaction([DOCUMENTS, META], 'readwrite')
    let failure: Error | undefined
    let version = 0
    const meta = tx.objectStore(META)
    const current = meta.get('version')
    current.onsuccess = () => {
      version = ((current.result as number | undefined) ?? 0) + 1
      meta.put(version, 'version')
    }
    change(tx, (error) => {
      failure = error
      tx.abort()
    })
    tx.oncomplete = () => resolve(version)
    tx.onabort = () => reject(failure ?? storageError(db.name, tx.error))
    tx.onerror = (event) => {
      if (failure) event.preventDefault()
    }
  })
}

function storageError(name: string, cause: DOMException | null): Error {
  const why = isQuotaExceeded(cause)
    ? 'the device is out of storage for this site'
    : (cause?.message ?? 'the transaction was aborted')
  return new Error(`IndexedDB '${name}' could not store the change: ${why}. Nothing of it was stored`, { cause })
}
