import { expect, it } from 'vitest'
import { HashingEmbeddingModel } from '../hashing-embedding'
import type { EmbeddingModel } from '../embedding-model'
import type { VectorStore } from '../vector-store'
import { answering, batching, failingOnCall } from './embedding-faults'

/** What every vector store does, run against a store made by `open` (a fresh, empty one per test). */
export function vectorStoreContract(open: (embedding: EmbeddingModel) => VectorStore | Promise<VectorStore>): void {
  const documents = [
    { id: 'hours', text: 'The shop opens at nine and closes at five on weekdays.', metadata: { file: 'hours.md' } },
    { id: 'returns', text: 'Returns are accepted within thirty days with a receipt.', metadata: { file: 'policy.md' } },
    {
      id: 'delivery',
      text: 'Delivery takes two days; express delivery takes one day.',
      metadata: { file: 'policy.md' },
    },
  ]

  it('finds the document that shares the words of the question, best first, with scores', async () => {
    const store = await open(new HashingEmbeddingModel())
    await store.add(documents)
    const found = await store.search({ text: 'When does the shop open?', topK: 2 })
    expect(found.map((document) => document.id)[0]).toBe('hours')
    expect(found).toHaveLength(2)
    expect(found[0]).toMatchObject({ text: documents[0]!.text, metadata: { file: 'hours.md' } })
    expect(found[0]!.score).toBeGreaterThan(found[1]!.score)
  })

  it('searches by vector, with minScore and a metadata filter', async () => {
    const embedding = new HashingEmbeddingModel()
    const store = await open(embedding)
    await store.add(documents)
    const vector = embedding.embedOne('express delivery')
    const policy = await store.search({ vector, topK: 5, filter: (metadata) => metadata['file'] === 'policy.md' })
    expect(policy.map((document) => document.id)).toEqual(['delivery', 'returns'])
    const close = await store.search({ vector, topK: 5, minScore: 0.3 })
    expect(close.map((document) => document.id)).toEqual(['delivery'])
  })

  it('replaces a document added again under its id, and deletes', async () => {
    const store = await open(new HashingEmbeddingModel())
    await store.add(documents)
    await store.add([{ id: 'hours', text: 'Closed on Sundays.' }])
    const [best] = await store.search({ text: 'closed sundays', topK: 1 })
    expect(best).toMatchObject({ id: 'hours', text: 'Closed on Sundays.' })
    expect(best!.metadata).toBeUndefined()
    await store.delete(['hours', 'returns', 'unknown'])
    expect((await store.search({ text: 'shop', topK: 5 })).map((document) => document.id)).toEqual(['delivery'])
  })

  it('refuses an empty document, naming it, and stores nothing of that add', async () => {
    const store = await open(new HashingEmbeddingModel())
    await expect(store.add([documents[0]!, { id: 'blank', text: '  \n' }])).rejects.toThrow(
      "Document 'blank' has no text: an empty document cannot be embedded or found",
    )
    expect(await store.search({ text: 'shop opens', topK: 5 })).toEqual([])
  })

  it("names a document over the embedding model's limit before embedding anything", async () => {
    const embedding = new HashingEmbeddingModel({ maxInputLength: 100 })
    const store = await open(embedding)
    await expect(store.add([documents[0]!, { id: 'book.md', text: 'word '.repeat(50) }])).rejects.toThrow(
      "Document 'book.md' is 250 characters long, over the embedding model's limit of 100: split it into smaller documents",
    )
    expect(embedding.batches).toEqual([])
  })

  it('stores nothing when the embedding service fails half-way through a batch', async () => {
    const failing = failingOnCall(new HashingEmbeddingModel(), 2)
    const store = await open(batching(failing, 2))
    await expect(store.add(documents)).rejects.toThrow(
      'Embedding 3 documents failed, so nothing was stored: 503 Service Unavailable',
    )
    expect(failing.calls).toBe(2)
    expect(await store.search({ vector: new HashingEmbeddingModel().embedOne('shop'), topK: 5 })).toEqual([])
  })

  it('refuses NaN vectors, naming the document', async () => {
    const store = await open(answering(Float32Array.from([0.5, Number.NaN, 1])))
    await expect(store.add([documents[0]!])).rejects.toThrow(
      "The embedding of document 'hours' holds NaN at position 1: it cannot be compared",
    )
  })

  it('refuses vectors of another dimension with a clear error', async () => {
    let vector = Float32Array.from([1, 0, 0])
    const store = await open({ embed: async (texts) => texts.map(() => vector.slice()) })
    await store.add([documents[0]!])
    vector = Float32Array.from([1, 0, 0, 0])
    await expect(store.add([documents[1]!])).rejects.toThrow(
      /holds vectors of 3 dimensions, but the embedding of 'returns' has 4: use the embedding model the store was built with/,
    )
    await expect(store.search({ vector: Float32Array.from([1, 0]) })).rejects.toThrow(/but the query has 2/)
  })

  it('refuses an empty vector, saying it is empty', async () => {
    const store = await open(answering(new Float32Array(0)))
    await expect(store.add([documents[0]!])).rejects.toThrow(
      "The embedding of document 'hours' is empty (0 dimensions): the embedding model returned no vector",
    )
  })

  it('scores vectors of tiny magnitude by their direction, not Infinity', async () => {
    const store = await open(answering(new Float32Array(8).fill(1e-40)))
    await store.add([documents[0]!])
    const [found] = await store.search({ vector: new Float32Array(8).fill(1), topK: 1 })
    expect(found!.score).toBeCloseTo(1, 5)
  })

  it('gives results and filters that never change the stored documents', async () => {
    const store = await open(new HashingEmbeddingModel())
    await store.add([{ id: 'hours', text: documents[0]!.text, metadata: { file: 'hours.md', tags: ['a'] } }])
    const [first] = await store.search({ text: 'shop', topK: 1 })
    first!.metadata!['file'] = 'changed.md'
    ;(first!.metadata!['tags'] as string[]).push('b')
    const changing = (metadata: Record<string, unknown>) => {
      try {
        metadata['file'] = 'changed by a filter'
      } catch {
        // A filter may not change what it sees: the store's own metadata is frozen.
      }
      return true
    }
    await store.search({ text: 'shop', topK: 1, filter: changing })
    const [again] = await store.search({ text: 'shop', topK: 1 })
    expect(again!.metadata).toEqual({ file: 'hours.md', tags: ['a'] })
  })

  it('refuses a search without a query', async () => {
    const store = await open(new HashingEmbeddingModel())
    await expect(store.search({ text: ' ' })).rejects.toThrow('search() needs a query: a non-empty text or a vector')
  })

  it('stops with an AbortError when the signal aborts, storing nothing', async () => {
    const store = await open(new HashingEmbeddingModel())
    const controller = new AbortController()
    controller.abort()
    await expect(store.add(documents, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' })
    expect(await store.search({ text: 'shop', topK: 5 })).toEqual([])
  })
}
