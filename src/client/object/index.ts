export * from './streamed-object-state'
export * from './streamed-object'
