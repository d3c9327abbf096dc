import { describe, expect, it } from 'vitest'
import { ChatModelError } from '../models'
import { InMemoryVectorStore } from '../retrieval'
import { WebLLMEmbeddingModel } from './embedding'
import { FakeEmbeddingEngine } from './testing/fake-embedding-engine'

describe('WebLLMEmbeddingModel', () => {
  it('embeds in batches through engine.embeddings.create, vectors in input order', async () => {
    const engine = new FakeEmbeddingEngine()
    const model = new WebLLMEmbeddingModel({ engine, model: 'snowflake-arctic-embed-s-q0f32-MLC-b4', batchSize: 2 })
    const vectors = await model.embed(['a', 'bb', 'ccc'])
    expect(vectors.map((vector) => Array.from(vector))).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ])
    expect(engine.requests.map((request) => request.input)).toEqual([['a', 'bb'], ['ccc']])
    expect(engine.requests[0]!.model).toBe('snowflake-arctic-embed-s-q0f32-MLC-b4')
  })

  it('fills a vector store in the page', async () => {
    const store = new InMemoryVectorStore(new WebLLMEmbeddingModel({ engine: new FakeEmbeddingEngine() }))
    await store.add([
      { id: 'short', text: 'ab' },
      { id: 'long', text: 'abcdefgh' },
    ])
    expect((await store.search({ vector: Float32Array.from([8, 1]), topK: 1 }))[0]!.id).toBe('long')
  })

  it('turns an engine failure into a ChatModelError that says what to do', async () => {
    const engine = new FakeEmbeddingEngine({
      fail: () => 'ModelNotLoadedError: Model not loaded before trying to complete',
    })
    const failure = await new WebLLMEmbeddingModel({ engine }).embed(['a']).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ChatModelError)
    expect((failure as Error).message).toContain('No model is loaded in the engine yet.')
  })

  it('settles at once when the signal aborts, though the engine cannot stop', async () => {
    const controller = new AbortController()
    const pending = new WebLLMEmbeddingModel({ engine: new FakeEmbeddingEngine({ pending: true }) }).embed(['a'], {
      signal: controller.signal,
    })
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('tells the store its limit, so a document over it is named before anything is embedded', async () => {
    const engine = new FakeEmbeddingEngine()
    const store = new InMemoryVectorStore(new WebLLMEmbeddingModel({ engine, maxInputLength: 5 }))
    await expect(store.add([{ id: 'chapter-1', text: 'too long for it' }])).rejects.toThrow(
      "Document 'chapter-1' is 15 characters long, over the embedding model's limit of 5",
    )
    expect(engine.requests).toEqual([])
  })
})
