export * from './chat-memory'
export * from './in-memory-repository'
export * from './indexeddb-repository'
export * from './window'
