import { PromptApiChatModel, type Availability, type PromptApiProgress } from 'advisor-chain/prompt-api'
import type { WebGPUReport } from 'advisor-chain/webllm'
import { WllamaChatModel, type WllamaLoadProgress } from 'advisor-chain/wllama'
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url'
import { TINY_MODEL, tinyGguf } from '../scripts/tiny-gguf.mjs'

/** The engines that run a model inside the page. */
export type EngineId = 'webllm' | 'prompt-api' | 'wllama'

export interface EngineInfo {
  id: EngineId
  name: string
  needs: string
  download: string
  tools: string
}

export const inBrowserEngines: EngineInfo[] = [
  {
    id: 'webllm',
    name: 'WebLLM',
    needs: 'WebGPU and 1.5–5 GB of GPU memory',
    download: 'the model, 0.4–5 GB, once (then the browser cache)',
    tools: 'native function calling (Hermes, Llama 3.1) or schema-constrained JSON',
  },
  {
    id: 'prompt-api',
    name: "Chrome's built-in model",
    needs: 'desktop Chrome 148+ whose device can run its model (Gemini Nano)',
    download: 'none for the page (Chrome fetches its model once, for every site)',
    tools: 'JSON held to the tools’ schemas by responseConstraint',
  },
  {
    id: 'wllama',
    name: 'llama.cpp (WebAssembly)',
    needs: 'any modern browser, on the CPU; threads need a cross-origin isolated page',
    download: 'the 2.9 MB (gzip) engine and a GGUF model (0.5 MB test model to several GB)',
    tools: 'grammar-constrained JSON from the tools’ schemas',
  },
]

export interface EngineChoice {
  engine: EngineId
  reason: string
}

/** The best engine this browser has: WebGPU → WebLLM, then the browser's own model, then llama.cpp on the CPU. */
export function bestEngine(
  gpu: WebGPUReport | undefined,
  promptApi: Availability | 'no-api' | undefined,
): EngineChoice {
  if (gpu?.ok) return { engine: 'webllm', reason: 'This browser has WebGPU: WebLLM runs models on the GPU, fastest.' }
  const noGpu = gpu ? 'No usable WebGPU here' : 'WebGPU not checked yet'
  if (promptApi === 'available')
    return { engine: 'prompt-api', reason: `${noGpu}, but Chrome's built-in model is ready on this device.` }
  if (promptApi === 'downloadable' || promptApi === 'downloading')
    return {
      engine: 'prompt-api',
      reason: `${noGpu}; Chrome's built-in model can run here after a one-time download by Chrome.`,
    }
  const builtIn =
    promptApi === 'no-api' ? 'this browser has no built-in model' : "Chrome's built-in model cannot run on this device"
  return { engine: 'wllama', reason: `${noGpu} and ${builtIn}: llama.cpp runs GGUF models on the CPU, in any browser.` }
}

export type WllamaSource = { kind: 'tiny' } | { kind: 'url'; url: string } | { kind: 'file'; file: File }

/** llama.cpp in the page, its wasm served by this app (Vite emits it as an asset). */
export function wllamaModel(
  source: WllamaSource,
  onProgress: (progress: WllamaLoadProgress) => void,
): Promise<WllamaChatModel> {
  const model =
    source.kind === 'tiny' ? new Blob([tinyGguf() as BlobPart]) : source.kind === 'file' ? source.file : source.url
  return WllamaChatModel.create({
    model,
    wasmUrl,
    onProgress,
    // The tiny model reads a byte per token: the demo's tool instructions alone are 2,000 of them.
    // Its random replies would otherwise run on to the end of the context; 1,500 leaves a random
    // JSON string (closed by a quote about one token in a hundred) room to end.
    ...(source.kind === 'tiny'
      ? { name: TINY_MODEL.name, contextLength: TINY_MODEL.contextLength, maxTokens: 1500 }
      : {}),
  })
}

export function promptApiModel(onProgress: (progress: PromptApiProgress) => void): Promise<PromptApiChatModel> {
  return PromptApiChatModel.create({ onProgress })
}
