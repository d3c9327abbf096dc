export * from './harness'
export * from './replay-model'
export * from './run-summary'
export * from './fork-run'
