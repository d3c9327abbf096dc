import type { MLCEngineInterface } from '@mlc-ai/web-llm'

/** The part of WebLLM's engine interface the adapter uses; a worker engine, a main-thread engine or a test double. */
export type WebLLMEngine = Pick<MLCEngineInterface, 'chatCompletion' | 'interruptGenerate'>

export type ToolStrategy = 'native' | 'constrained-json'
