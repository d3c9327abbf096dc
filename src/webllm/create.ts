import type { AppConfig, InitProgressReport, MLCEngineInterface } from '@mlc-ai/web-llm'
import { checkWebGPU, modelVariantFor, type WebGPUReport } from './capabilities'
import { defaultToolStrategy, type ToolStrategy, type WebLLMEngine } from './engine'
import { webllmError } from './errors'
import { ChatModelError } from '../models'
import { toProgress, type LoadProgress } from './progress'
import { loadWebLLM } from './runtime'

/** The line that gives the engine its own thread; the app's bundler builds the worker with the app's WebLLM. */
const WORKER_LINE = "new Worker(new URL('advisor-chain/webllm/worker', import.meta.url), { type: 'module' })"

export interface WebLLMCreateOptions {
  /** A WebLLM model id; the q4f32 variant of a q4f16 model is used when the GPU lacks shader-f16. */
  model: string
  /** The tokens the model reads at once; default its `context_window_size` in the app config. */
  contextWindow?: number
  /**
   * The Web Worker the engine runs in, created by your bundler:
   * `new Worker(new URL('advisor-chain/webllm/worker', import.meta.url), { type: 'module' })`;
   * or false to run it on the main thread (decoding then blocks the page). Needed unless `engine` is given.
   */
  worker?: Worker | false
  /** An engine you already have; nothing is loaded then. */
  engine?: WebLLMEngine
  toolStrategy?: ToolStrategy
  onProgress?: (progress: LoadProgress) => void
  /** WebLLM's app config (model list, cache backend); default its prebuilt one. */
  appConfig?: AppConfig
}

/** The engine a WebLLMChatModel runs on, and its settings. */
export interface CreatedEngine {
  engine: WebLLMEngine
  model: string
  toolStrategy?: ToolStrategy
  /** The model's `context_window_size` in the app config, when it names one. */
  contextWindow?: number
}

/**
 * Checks WebGPU, then loads the model in a Web Worker (or on the main thread) with WebLLM, which is
 * only ever imported here, dynamically. Fails with a ChatModelError that says what to do.
 */
export async function createEngine(options: WebLLMCreateOptions): Promise<CreatedEngine> {
  if (options.engine) {
    return {
      engine: options.engine,
      model: options.model,
      ...(options.toolStrategy ? { toolStrategy: options.toolStrategy } : {}),
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    }
  }
  if (options.worker === undefined) {
    throw new ChatModelError(
      `WebLLMChatModel.create() needs a worker: pass worker: ${WORKER_LINE} (your bundler builds it with your own @mlc-ai/web-llm), or worker: false to run the model on the main thread.`,
      { provider: 'webllm', code: 'worker-missing', retryable: false },
    )
  }
  const report = await checkWebGPU()
  if (!report.ok) throw unavailable(report)
  const webllm = await loadWebLLM()
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
      engine = await webllm.CreateWebWorkerMLCEngine(options.worker, model, engineConfig)
    }
  } catch (error) {
    throw webllmError(error, model)
  }
  const toolStrategy = options.toolStrategy ?? defaultToolStrategy(model, webllm.functionCallingModelIds)
  const window =
    options.contextWindow ??
    appConfig.model_list.find((record) => record.model_id === model)?.overrides?.context_window_size
  return { engine, model, toolStrategy, ...(window !== undefined && window > 0 ? { contextWindow: window } : {}) }
}

function unavailable(report: WebGPUReport): ChatModelError {
  return new ChatModelError(report.message, {
    provider: 'webllm',
    code: report.reason ?? 'unavailable',
    retryable: false,
  })
}
