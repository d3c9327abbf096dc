export * from './advisor-params'
export * from './client-advisors'
export * from './client'
export * from './output-format'
