import { throwIfAborted, wholeNumber } from '../core'
import type { EmbeddingModel } from './embedding-model'

export interface HashingEmbeddingModelOptions {
  /** Default 384, as small sentence-embedding models have. */
  dimensions?: number
  /** The longest text it takes, in characters (default: no limit), to exercise a store's limit check. */
  maxInputLength?: number
}

/**
 * A test double: a deterministic embedding with no model behind it. Each word and each three-letter
 * piece of a word is hashed to a signed position of the vector, so texts that share words point the
 * same way. Good for tests, benchmarks and the offline demo; it knows no synonyms. Records every
 * batch it was asked to embed (`.batches`).
 */
export class HashingEmbeddingModel implements EmbeddingModel {
  readonly dimensions: number
  readonly maxInputLength?: number
  readonly batches: string[][] = []

  constructor(options: HashingEmbeddingModelOptions = {}) {
    this.dimensions = wholeNumber('dimensions', options.dimensions ?? 384, 1)
    if (options.maxInputLength !== undefined)
      this.maxInputLength = wholeNumber('maxInputLength', options.maxInputLength, 1)
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    throwIfAborted(options.signal)
    this.batches.push([...texts])
    return texts.map((text) => this.embedOne(text))
  }

  /** The vector of one text, at once. */
  embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions)
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      this.#add(vector, word, 2)
      const padded = ` ${word} `
      for (let i = 0; i + 3 <= padded.length; i++) this.#add(vector, padded.slice(i, i + 3), 1)
    }
    return vector
  }

  #add(vector: Float32Array, feature: string, weight: number): void {
    const hash = fnv1a(feature)
    vector[hash % this.dimensions]! += hash & 0x80000000 ? -weight : weight
  }
}

/** FNV-1a, 32 bits, unsigned. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}
