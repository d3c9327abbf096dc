import type { MLCEngineInterface } from '@mlc-ai/web-llm'

/** The part of WebLLM's engine interface the adapter uses; a worker engine, a main-thread engine or a test double. */
export type WebLLMEngine = Pick<MLCEngineInterface, 'chatCompletion' | 'interruptGenerate'>

export type ToolStrategy = 'native' | 'constrained-json'

// WebLLM's function-calling models (its `functionCallingModelIds`), known without loading the runtime.
const NATIVE_TOOL_MODELS = /^Hermes-(2-Pro-Llama-3-8B|2-Pro-Mistral-7B|3-Llama-3\.1-8B)-/

export function defaultToolStrategy(model: string, functionCallingModelIds?: readonly string[]): ToolStrategy {
  const native = functionCallingModelIds ? functionCallingModelIds.includes(model) : NATIVE_TOOL_MODELS.test(model)
  return native ? 'native' : 'constrained-json'
}
