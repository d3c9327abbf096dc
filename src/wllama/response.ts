import type { ChatCompletionUsage, ResultTimings } from '@wllama/wllama'
import type { ChatResponseMetadata, Usage } from '../core'

/** llama.cpp's own timings, as they ride in the response metadata (and so in the trace). */
export interface EngineTimings {
  promptTokens: number
  cachedTokens: number
  promptMs: number
  predictedTokens: number
  predictedMs: number
}

/** Usage, speed and the engine's timings; a stream's last chunk carries timings but no usage. */
export function engineMetadata(
  model: string,
  timings: ResultTimings | undefined,
  usage: ChatCompletionUsage | null | undefined,
  measuredFirstTokenMs?: number,
): ChatResponseMetadata {
  const metadata: ChatResponseMetadata = { model }
  const promptTokens = usage?.prompt_tokens ?? (timings ? timings.prompt_n + timings.cache_n : undefined)
  const completionTokens = usage?.completion_tokens ?? timings?.predicted_n
  if (promptTokens !== undefined && completionTokens !== undefined) {
    const counted: Usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens }
    if (timings?.cache_n) counted.cacheReadTokens = timings.cache_n
    metadata.usage = counted
  }
  if (!timings) return metadata
  metadata['speed'] = {
    prefillTokensPerSecond: timings.prompt_per_second,
    decodeTokensPerSecond: timings.predicted_per_second,
    ...(measuredFirstTokenMs !== undefined ? { timeToFirstTokenMs: measuredFirstTokenMs } : {}),
  }
  const engine: EngineTimings = {
    promptTokens: timings.prompt_n,
    cachedTokens: timings.cache_n,
    promptMs: timings.prompt_ms,
    predictedTokens: timings.predicted_n,
    predictedMs: timings.predicted_ms,
  }
  metadata['timings'] = engine
  return metadata
}
