import { describe } from 'vitest'
import { InMemoryVectorStore } from './in-memory-store'
import { vectorStoreContract } from './testing/store-contract'

describe('InMemoryVectorStore', () => {
  vectorStoreContract((embedding) => new InMemoryVectorStore(embedding))
})
