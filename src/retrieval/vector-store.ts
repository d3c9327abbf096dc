import { abortError, isAbortError, throwIfAborted, wholeNumber } from '../core'
import { checkDocuments, type Document, type ScoredDocument } from './document'
import { checkVectors, EmbeddingInputError, type EmbeddingModel } from './embedding-model'

export interface VectorSearch {
  /** Embedded with the store's model; or give `vector`. */
  text?: string
  vector?: Float32Array
  /** How many documents at most (default 4). */
  topK?: number
  /** The lowest cosine similarity kept (default: no threshold). */
  minScore?: number
  /** Keeps only the documents whose metadata it accepts ({} for a document without). */
  filter?: (metadata: Record<string, unknown>) => boolean
  signal?: AbortSignal
}

/** Documents with their vectors, searched by similarity. */
export interface VectorStore {
  add(documents: readonly Document[], options?: { signal?: AbortSignal }): Promise<void>
  delete(ids: readonly string[]): Promise<void>
  search(query: VectorSearch): Promise<ScoredDocument[]>
}

export const DEFAULT_TOP_K = 4

/** Checks and embeds documents; throws (storing nothing) when any document or vector is wrong. */
export async function embedDocuments(
  embedding: EmbeddingModel,
  documents: readonly Document[],
  signal: AbortSignal | undefined,
): Promise<Array<{ document: Document; vector: Float32Array }>> {
  checkDocuments(documents, embedding.maxInputLength)
  throwIfAborted(signal)
  if (documents.length === 0) return []
  let vectors: Float32Array[]
  try {
    vectors = await embedding.embed(
      documents.map((document) => document.text),
      signal ? { signal } : {},
    )
  } catch (error) {
    if (signal?.aborted || isAbortError(error)) throw signal?.aborted ? abortError(signal) : error
    if (error instanceof EmbeddingInputError && documents[error.index])
      throw new RangeError(
        `Document '${documents[error.index]!.id}' was refused by the embedding model: ${error.message}. Nothing was stored`,
        { cause: error },
      )
    throw new Error(
      `Embedding ${documents.length} document${documents.length === 1 ? '' : 's'} failed, so nothing was stored: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  throwIfAborted(signal)
  const checked = checkVectors(vectors, documents.length, (index) => `document '${documents[index]!.id}'`)
  return documents.map((document, index) => ({
    document: storedDocument(document),
    vector: ownBuffer(checked[index]!),
  }))
}

/** The query's vector (embedding its text when no vector is given), its topK and threshold, checked. */
export async function searchVector(
  embedding: EmbeddingModel,
  query: VectorSearch,
): Promise<{ vector: Float32Array; topK: number; minScore: number }> {
  if (query === null || typeof query !== 'object') throw new TypeError('search() takes { text } or { vector }')
  const topK = wholeNumber('topK', query.topK ?? DEFAULT_TOP_K, 0)
  const minScore = query.minScore ?? Number.NEGATIVE_INFINITY
  if (typeof minScore !== 'number' || Number.isNaN(minScore))
    throw new TypeError(`minScore must be a number, got ${String(query.minScore)}`)
  if (query.filter !== undefined && typeof query.filter !== 'function')
    throw new TypeError('filter must be a function of the metadata, returning true to keep a document')
  if (query.vector !== undefined) {
    const [vector] = checkVectors([query.vector], 1, () => 'the query')
    return { vector: vector!, topK, minScore }
  }
  if (typeof query.text !== 'string' || query.text.trim().length === 0)
    throw new TypeError('search() needs a query: a non-empty text or a vector')
  const vectors = await embedding.embed([query.text], query.signal ? { signal: query.signal } : {})
  throwIfAborted(query.signal)
  const [vector] = checkVectors(vectors, 1, () => 'the query')
  return { vector: vector!, topK, minScore }
}

export function dimensionError(storeName: string, stored: number, given: number, what: string): Error {
  return new RangeError(
    `${storeName} holds vectors of ${stored} dimensions, but ${what} has ${given}: use the embedding model the store was built with (or another store)`,
  )
}

/** A plain copy, so that a caller changing its object later does not change the store. */
function storedDocument({ id, text, metadata }: Document): Document {
  return metadata === undefined ? { id, text } : { id, text, metadata: structuredClone(metadata) }
}

/** A vector that is a view into a larger buffer is copied: IndexedDB would store the whole buffer with it. */
function ownBuffer(vector: Float32Array): Float32Array {
  return vector.byteOffset === 0 && vector.byteLength === vector.buffer.byteLength ? vector : vector.slice()
}
