import type { AppConfig } from '@mlc-ai/web-llm'
import { loadWebLLM } from './runtime'

export interface WebLLMModelInfo {
  id: string
  /** GPU memory the model needs, in MB, as WebLLM lists it. */
  vramMB?: number
  /** One of WebLLM's function-calling models (tools natively); others use constrained JSON. */
  nativeTools: boolean
  lowResource: boolean
}

/** WebLLM's prebuilt chat models, smallest first (loads the runtime, dynamically). */
export async function listModels(): Promise<WebLLMModelInfo[]> {
  const webllm = await loadWebLLM()
  return webllm.prebuiltAppConfig.model_list
    .filter((record) => (record.model_type ?? 0) === 0)
    .map((record) => ({
      id: record.model_id,
      ...(record.vram_required_MB !== undefined ? { vramMB: Math.round(record.vram_required_MB) } : {}),
      nativeTools: webllm.functionCallingModelIds.includes(record.model_id),
      lowResource: record.low_resource_required ?? false,
    }))
    .sort((a, b) => (a.vramMB ?? Infinity) - (b.vramMB ?? Infinity))
}

/** Whether the model's weights are already in the browser cache. */
export async function isModelCached(modelId: string, appConfig?: AppConfig): Promise<boolean> {
  const webllm = await loadWebLLM()
  return webllm.hasModelInCache(modelId, appConfig ?? webllm.prebuiltAppConfig)
}

/** Removes the model's weights, config and library from the browser cache. */
export async function deleteCachedModel(modelId: string, appConfig?: AppConfig): Promise<void> {
  const webllm = await loadWebLLM()
  await webllm.deleteModelAllInfoInCache(modelId, appConfig ?? webllm.prebuiltAppConfig)
}
