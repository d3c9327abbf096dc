// advisor-chain/webllm: in-browser models on WebGPU. WebLLM itself is loaded only on demand.
export { checkWebGPU, modelVariantFor, type WebGPUReport } from './capabilities'
export { deleteCachedModel, isModelCached, listModels, type WebLLMModelInfo } from './catalogue'
export type { WebLLMCreateOptions } from './create'
export { toProgress, type LoadProgress } from './progress'
export { defaultToolStrategy, type ToolStrategy, type WebLLMEngine } from './engine'
export { webllmError } from './errors'
export { WebLLMChatModel, type WebLLMChatModelOptions } from './model'
export { WebLLMEmbeddingModel, type WebLLMEmbeddingEngine, type WebLLMEmbeddingModelOptions } from './embedding'
