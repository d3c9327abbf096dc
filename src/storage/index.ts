export * from './connection'
export * from './open'
export * from './quota'
