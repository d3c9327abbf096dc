import type { AppConfig, InitProgressReport, MLCEngineInterface } from '@mlc-ai/web-llm'
import { checkWebGPU, modelVariantFor, type WebGPUReport } from './capabilities'
import type { ToolStrategy, WebLLMEngine } from './engine'
import { webllmError } from './errors'
import { WebLLMChatModel, defaultToolStrategy } from './model'
import { ChatModelError } from '../models'
import { toProgress, type LoadProgress } from './progress'

export interface WebLLMCreateOptions {
  /** A WebLLM model id; the q4f32 variant of a q4f16 model is used when the GPU lacks shader-f16. */
  model: string
  /** A Web Worker (default: the package's own worker), your own Worker, or false for the main thread. */
  worker?: boolean | Worker
  /** An engine you already have; nothing is loaded then. */
  engine?: WebLLMEngine
  toolStrategy?: ToolStrategy
  onProgress?: (progress: LoadProgress) => void
  /** WebLLM's app config (model list, cache backend); default its prebuilt one. */
  appConfig?: AppConfig
}

/**
 * Checks WebGPU, then loads the model in a Web Worker (or on the main thread) with WebLLM, which is
 * only ever imported here, dynamically. Fails with a ChatModelError that says what to do.
 */
export async function createWebLLMChatModel(options: WebLLMCreateOptions): Promise<WebLLMChatModel> {
  if (options.engine) {
    return new WebLLMChatModel(options.engine, {
      model: options.model,
      ...(options.toolStrategy ? { toolStrategy: options.toolStrategy } : {}),
    })
  }
  const report = await checkWebGPU()
  if (!report.ok) throw unavailable(report)
  const webllm = await import('@mlc-ai/web-llm')
  const appConfig = options.appConfig ?? webllm.prebuiltAppConfig
  const model = modelVariantFor(
    options.model,
    report,
    appConfig.model_list.map((record) => record.model_id),
  )
  const engineConfig = {
    appConfig,
    ...(options.onProgress
      ? { initProgressCallback: (report: InitProgressReport) => options.onProgress!(toProgress(report)) }
      : {}),
  }
  let engine: MLCEngineInterface
  try {
    if (options.worker === false) {
      engine = await webllm.CreateMLCEngine(model, engineConfig)
    } else {
      const worker =
        options.worker instanceof Worker
          ? options.worker
          : new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })
      engine = await webllm.CreateWebWorkerMLCEngine(worker, model, engineConfig)
    }
  } catch (error) {
    throw webllmError(error, model)
  }
  const toolStrategy = options.toolStrategy ?? defaultToolStrategy(model, webllm.functionCallingModelIds)
  return new WebLLMChatModel(engine, { model, toolStrategy })
}

function unavailable(report: WebGPUReport): ChatModelError {
  return new ChatModelError(report.message, {
    provider: 'webllm',
    code: report.reason ?? 'unavailable',
    retryable: false,
  })
}
