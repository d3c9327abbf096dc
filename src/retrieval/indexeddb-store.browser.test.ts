import { afterEach, describe, expect, it } from 'vitest'
import { HashingEmbeddingModel } from './hashing-embedding'
import { IndexedDBVectorStore } from './indexeddb-store'
import { vectorStoreContract } from './testing/store-contract'

const opened: IndexedDBVectorStore[] = []
let counter = 0
const freshName = () => `test-${Date.now()}-${counter++}`

function open(embedding: ConstructorParameters<typeof IndexedDBVectorStore>[0], name = freshName()) {
  const store = new IndexedDBVectorStore(embedding, { name })
  opened.push(store)
  return store
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.destroy()
})

const passage = (i: number) => ({ id: `p${i}`, text: `passage ${i} about topic${i % 7}`, metadata: { i } })

describe('IndexedDBVectorStore', () => {
  vectorStoreContract((embedding) => open(embedding))

  it('keeps its documents across a reload (a new store on the same name)', async () => {
    const embedding = new HashingEmbeddingModel()
    const name = freshName()
    const first = open(embedding, name)
    await first.add([passage(1), passage(2), passage(3)])
    first.close()
    const reopened = new IndexedDBVectorStore(embedding, { name })
    const found = await reopened.search({ text: 'passage 2 about topic2', topK: 1 })
    expect(found[0]).toMatchObject({ id: 'p2', metadata: { i: 2 } })
    reopened.close()
  })

  it('sees what another tab added or deleted (two connections to one database)', async () => {
    const embedding = new HashingEmbeddingModel()
    const name = freshName()
    const tab1 = open(embedding, name)
    const tab2 = new IndexedDBVectorStore(embedding, { name })
    await tab1.add([passage(1)])
    expect(await tab2.search({ text: 'passage 1', topK: 5 })).toHaveLength(1)
    await tab1.add([passage(2)])
    await tab2.delete(['p1'])
    expect((await tab1.search({ text: 'passage', topK: 5 })).map((d) => d.id)).toEqual(['p2'])
    expect((await tab2.search({ text: 'passage', topK: 5 })).map((d) => d.id)).toEqual(['p2'])
    tab2.close()
  })

  it('lets concurrent adds from two tabs each land whole', async () => {
    const embedding = new HashingEmbeddingModel()
    const name = freshName()
    const tab1 = open(embedding, name)
    const tab2 = new IndexedDBVectorStore(embedding, { name })
    await Promise.all([
      tab1.add(Array.from({ length: 50 }, (_, i) => passage(i))),
      tab2.add(Array.from({ length: 50 }, (_, i) => passage(100 + i))),
    ])
    expect(await tab1.search({ text: 'passage', topK: 1000 })).toHaveLength(100)
    expect(await tab2.search({ text: 'passage', topK: 1000 })).toHaveLength(100)
    tab2.close()
  })

  it('refuses a dimension set by another tab, storing nothing of the refused add', async () => {
    const name = freshName()
    const small = open(new HashingEmbeddingModel({ dimensions: 8 }), name)
    const large = new IndexedDBVectorStore(new HashingEmbeddingModel({ dimensions: 16 }), { name })
    await small.add([passage(1)])
    await expect(large.add([passage(2), passage(3)])).rejects.toThrow(
      `IndexedDB vector store '${name}' holds vectors of 8 dimensions, but the embedding of 'p2' has 16`,
    )
    expect((await small.search({ text: 'passage', topK: 5 })).map((d) => d.id)).toEqual(['p1'])
    large.close()
  })

  it('stores vectors as Float32Array records of their own size, even when the model answers with views', async () => {
    const shared = new Float32Array(400).fill(0.5)
    const store = open({ embed: async (texts) => texts.map((_, i) => shared.subarray(i * 4, i * 4 + 4)) })
    await store.add([passage(1)])
    const record = await new Promise<unknown>((resolve, reject) => {
      const request = indexedDB.open(store.databaseName)
      request.onsuccess = () => {
        const get = request.result.transaction('documents').objectStore('documents').get('p1')
        get.onsuccess = () => {
          request.result.close()
          resolve(get.result)
        }
        get.onerror = () => reject(new Error(String(get.error)))
      }
    })
    const { vector } = record as { vector: Float32Array }
    expect(vector).toBeInstanceOf(Float32Array)
    expect(vector.buffer.byteLength).toBe(16)
  })

  it('yields to another tab that upgrades the database, and says to reload when it is newer', async () => {
    const embedding = new HashingEmbeddingModel()
    const store = open(embedding)
    await store.add([passage(1)])
    const newer = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(store.databaseName, 2)
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => reject(new Error(String(request.error)))
    })
    newer.close()
    await expect(store.search({ text: 'passage 1', topK: 1 })).rejects.toThrow(
      new RegExp(
        `Could not open IndexedDB '${store.databaseName}': .*a newer version of this app upgraded it: reload the page`,
      ),
    )
  })

  it('says what to use where there is no IndexedDB, and opens again after a failed open', async () => {
    let refuse = true
    const flaky = {
      open: (name: string, version?: number) => {
        if (refuse) throw new DOMException('The operation is insecure.', 'SecurityError')
        return indexedDB.open(name, version)
      },
      deleteDatabase: (name: string) => indexedDB.deleteDatabase(name),
    } as IDBFactory
    const store = new IndexedDBVectorStore(new HashingEmbeddingModel(), { name: freshName(), indexedDB: flaky })
    opened.push(store)
    await expect(store.add([passage(1)])).rejects.toThrow(
      /Could not open IndexedDB .*: SecurityError: The operation is insecure/,
    )
    refuse = false
    await store.add([passage(1)])
    expect((await store.search({ text: 'passage 1', topK: 1 }))[0]).toMatchObject({ id: 'p1' })

    const nowhere = new IndexedDBVectorStore(new HashingEmbeddingModel(), { name: freshName() })
    // A page without IndexedDB (a private mode without storage).
    const original = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB')!
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true })
    try {
      await expect(nowhere.search({ text: 'x', topK: 1 })).rejects.toThrow(
        'This environment has no IndexedDB (a server, or a private mode without storage); use InMemoryVectorStore',
      )
    } finally {
      Object.defineProperty(globalThis, 'indexedDB', original)
    }
  })
})
