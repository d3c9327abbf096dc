import type { ChatOptions } from '../core'

/** The sampling settings of an OpenAI-style chat completion, as the in-page engines (WebLLM, llama.cpp) read them. */
export interface EngineSampling {
  // llama.cpp reads `temperature` too (wllama's types say `temp`, which it ignores).
  temperature?: number
  top_p?: number
  max_tokens?: number
  seed?: number
  stop?: string[]
}

/** A prompt's options as an engine's sampling settings, with the engine's own `providerOptions[engine]` over them. */
export function engineSampling(options: ChatOptions, engine: string): EngineSampling {
  const sampled: EngineSampling = {}
  if (options.temperature !== undefined) sampled.temperature = options.temperature
  if (options.topP !== undefined) sampled.top_p = options.topP
  if (options.maxTokens !== undefined) sampled.max_tokens = options.maxTokens
  if (options.seed !== undefined) sampled.seed = options.seed
  if (options.stopSequences?.length) sampled.stop = options.stopSequences
  return { ...sampled, ...(options.providerOptions?.[engine] as EngineSampling | undefined) }
}
