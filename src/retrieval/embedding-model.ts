import { isArray } from './document'

/** Turns texts into vectors, many at once: a remote API or an engine in the page. */
export interface EmbeddingModel {
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>
  /** The longest text, in characters, the model takes; a store refuses a longer document before embedding anything. */
  readonly maxInputLength?: number
}

/** A text the embedding model refused (too long for it), by its position in the batch. */
export class EmbeddingInputError extends Error {
  override readonly name = 'EmbeddingInputError'

  constructor(
    message: string,
    /** The position of the refused text in the texts handed to `embed`. */
    readonly index: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/**
 * Checks what an embedding model returned: one finite, non-zero vector per text, all of one
 * dimension. `describe(i)` names the text (a document id) in the error.
 */
export function checkVectors(
  vectors: readonly Float32Array[],
  count: number,
  describe: (index: number) => string,
): Float32Array[] {
  if (!isArray(vectors) || vectors.length !== count)
    throw new Error(
      `The embedding model returned ${isArray(vectors) ? vectors.length : 'no array of'} vectors for ${count} texts`,
    )
  const dimensions = vectors[0]?.length
  return vectors.map((vector, index) => {
    if (!(vector instanceof Float32Array))
      throw new TypeError(`The embedding of ${describe(index)} is not a Float32Array`)
    if (vector.length === 0)
      throw new Error(
        `The embedding of ${describe(index)} is empty (0 dimensions): the embedding model returned no vector`,
      )
    if (vector.length !== dimensions)
      throw new Error(
        `The embedding of ${describe(index)} has ${vector.length} dimensions where the others have ${dimensions}`,
      )
    let squares = 0
    for (let i = 0; i < vector.length; i++) {
      const value = vector[i]!
      if (!Number.isFinite(value))
        throw new Error(`The embedding of ${describe(index)} holds ${value} at position ${i}: it cannot be compared`)
      squares += value * value
    }
    if (squares === 0)
      throw new Error(`The embedding of ${describe(index)} is all zeros: it has no direction to compare`)
    return vector
  })
}
