import type { Document, ScoredDocument } from './document'

const NO_METADATA: Record<string, unknown> = Object.freeze({})

/**
 * The documents of a store with their vectors packed row after row in one Float32Array, and each
 * row's inverse norm computed once: a search is one pass of dot products over contiguous memory.
 */
export class VectorIndex {
  readonly dimensions: number
  #vectors: Float32Array
  // Float64: the inverse norm of a tiny vector (1e-40s) overflows a Float32 to Infinity.
  #inverseNorms: Float64Array
  readonly #documents: Document[] = []
  readonly #rows = new Map<string, number>()

  constructor(dimensions: number, capacity = 64) {
    this.dimensions = dimensions
    this.#vectors = new Float32Array(dimensions * capacity)
    this.#inverseNorms = new Float64Array(capacity)
  }

  get size(): number {
    return this.#documents.length
  }

  /** Adds a document, or replaces the one with its id. The vector is copied; the document is frozen, as filters see it. */
  upsert(document: Document, vector: Float32Array): void {
    deepFreeze(document)
    let row = this.#rows.get(document.id)
    if (row === undefined) {
      row = this.#documents.length
      if (row === this.#inverseNorms.length) this.#grow()
      this.#rows.set(document.id, row)
      this.#documents.push(document)
    } else {
      this.#documents[row] = document
    }
    this.#vectors.set(vector, row * this.dimensions)
    this.#inverseNorms[row] = 1 / Math.sqrt(squaredNorm(vector))
  }

  /** Removes a document; the last row moves into its place. */
  delete(id: string): boolean {
    const row = this.#rows.get(id)
    if (row === undefined) return false
    const last = this.#documents.length - 1
    this.#rows.delete(id)
    if (row !== last) {
      const moved = this.#documents[last]!
      this.#documents[row] = moved
      this.#rows.set(moved.id, row)
      const d = this.dimensions
      this.#vectors.copyWithin(row * d, last * d, last * d + d)
      this.#inverseNorms[row] = this.#inverseNorms[last]!
    }
    this.#documents.pop()
    return true
  }

  /** The `topK` documents most similar to `query` (cosine), best first, at or above `minScore`. */
  search(
    query: Float32Array,
    topK: number,
    minScore: number,
    filter?: (metadata: Record<string, unknown>) => boolean,
  ): ScoredDocument[] {
    const d = this.dimensions
    const count = this.#documents.length
    const queryNorm = Math.sqrt(squaredNorm(query))
    if (count === 0 || topK === 0 || queryNorm === 0) return []
    const inverseQueryNorm = 1 / queryNorm
    const vectors = this.#vectors
    const inverseNorms = this.#inverseNorms
    const documents = this.#documents
    // The best so far, kept sorted, worst last: a new one is compared with the worst only.
    const bestScores: number[] = []
    const bestRows: number[] = []
    let worst = minScore
    for (let row = 0, offset = 0; row < count; row++, offset += d) {
      let dot = 0
      for (let i = 0; i < d; i++) dot += vectors[offset + i]! * query[i]!
      const score = dot * inverseNorms[row]! * inverseQueryNorm
      if (score < worst || (bestScores.length === topK && score === worst)) continue
      if (filter && !filter(documents[row]!.metadata ?? NO_METADATA)) continue
      let at = bestScores.length
      while (at > 0 && bestScores[at - 1]! < score) at--
      bestScores.splice(at, 0, score)
      bestRows.splice(at, 0, row)
      if (bestScores.length > topK) {
        bestScores.pop()
        bestRows.pop()
      }
      if (bestScores.length === topK) worst = bestScores[topK - 1]!
    }
    return bestRows.map((row, rank) => found(documents[row]!, bestScores[rank]!))
  }

  #grow(): void {
    const capacity = this.#inverseNorms.length * 2
    const vectors = new Float32Array(this.dimensions * capacity)
    vectors.set(this.#vectors)
    this.#vectors = vectors
    const norms = new Float64Array(capacity)
    norms.set(this.#inverseNorms)
    this.#inverseNorms = norms
  }
}

/** A result the caller owns: changing its metadata never changes the store. */
function found({ id, text, metadata }: Document, score: number): ScoredDocument {
  return metadata === undefined ? { id, text, score } : { id, text, metadata: structuredClone(metadata), score }
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
}

function squaredNorm(vector: Float32Array): number {
  let sum = 0
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!
  return sum
}
