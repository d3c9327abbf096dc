import { throwIfAborted } from '../core'
import type { Document, ScoredDocument } from './document'
import type { EmbeddingModel } from './embedding-model'
import { VectorIndex } from './vector-index'
import { dimensionError, embedDocuments, searchVector, type VectorSearch, type VectorStore } from './vector-store'

/** A vector store in the page's memory: gone on reload; for tests, demos and documents the page loads itself. */
export class InMemoryVectorStore implements VectorStore {
  readonly #embedding: EmbeddingModel
  #index: VectorIndex | undefined

  constructor(embedding: EmbeddingModel) {
    if (typeof embedding?.embed !== 'function')
      throw new TypeError('InMemoryVectorStore needs an embedding model: an object with embed(texts)')
    this.#embedding = embedding
  }

  /** How many documents the store holds. */
  get size(): number {
    return this.#index?.size ?? 0
  }

  async add(documents: readonly Document[], options: { signal?: AbortSignal } = {}): Promise<void> {
    const embedded = await embedDocuments(this.#embedding, documents, options.signal)
    if (embedded.length === 0) return
    const dimensions = embedded[0]!.vector.length
    if (this.#index && this.#index.dimensions !== dimensions)
      throw dimensionError(
        'This InMemoryVectorStore',
        this.#index.dimensions,
        dimensions,
        `the embedding of '${embedded[0]!.document.id}'`,
      )
    const index = (this.#index ??= new VectorIndex(dimensions))
    for (const { document, vector } of embedded) index.upsert(document, vector)
  }

  async delete(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.#index?.delete(id)
  }

  async search(query: VectorSearch): Promise<ScoredDocument[]> {
    const { vector, topK, minScore } = await searchVector(this.#embedding, query)
    throwIfAborted(query.signal)
    const index = this.#index
    if (!index) return []
    if (vector.length !== index.dimensions)
      throw dimensionError('This InMemoryVectorStore', index.dimensions, vector.length, 'the query')
    return index.search(vector, topK, minScore, query.filter)
  }
}
