import type { EmbeddingModel } from '../embedding-model'

/** An embedding model that fails on its `failOn`-th call (from 1), as a service failing half-way through a batch. */
export function failingOnCall(inner: EmbeddingModel, failOn: number): EmbeddingModel & { calls: number } {
  const model = {
    calls: 0,
    async embed(texts: readonly string[], options?: { signal?: AbortSignal }) {
      model.calls++
      if (model.calls === failOn) throw new Error('503 Service Unavailable')
      return inner.embed(texts, options)
    },
  }
  return model
}

/** An embedding model that answers with `vector` for every text. */
export function answering(vector: Float32Array): EmbeddingModel {
  return { embed: async (texts) => texts.map(() => vector.slice()) }
}

/** Embeds in batches of `size` by calling `inner` once per batch: a failure of a later batch loses the earlier ones. */
export function batching(inner: EmbeddingModel, size: number): EmbeddingModel {
  return {
    async embed(texts, options) {
      const vectors: Float32Array[] = []
      for (let start = 0; start < texts.length; start += size)
        vectors.push(...(await inner.embed(texts.slice(start, start + size), options)))
      return vectors
    },
  }
}
