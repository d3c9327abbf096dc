export * from './define-tool'
export * from './manager'
export * from './tool-errors'
export * from './turn'
