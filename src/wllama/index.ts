// advisor-chain/wllama: GGUF models on the CPU with llama.cpp in WebAssembly. wllama itself is loaded only on demand.
export type { WllamaEngine } from './engine'
export { wllamaError, type WllamaFailure } from './errors'
export type { WllamaCreateOptions, WllamaLoadProgress } from './load'
export { WllamaChatModel, type WllamaChatModelOptions } from './model'
export type { EngineTimings } from './response'
