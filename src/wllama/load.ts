import type { LoadModelParams } from '@wllama/wllama'
import { abortError, throwIfAborted } from '../core'
import { ChatModelError } from '../models'
import type { WllamaEngine } from './engine'
import { wllamaError, wllamaFailure } from './errors'
import { attachLog, NativeLog } from './native-log'
import { loadWllama } from './runtime'

const GiB = 1024 ** 3
/** The engine's wasm memory tops out at 4 GiB; the weights share it with the context and scratch space. */
const DEFAULT_MAX_MODEL_BYTES = 3 * GiB

export interface WllamaLoadProgress {
  /** From 0 to 1; a Blob loads at once. */
  fraction: number
  loadedMB: number
  totalMB?: number
  text: string
}

export interface WllamaCreateOptions {
  /** The GGUF model: a URL (downloaded once, then read from the origin's storage) or a Blob / File. */
  model: string | Blob
  /**
   * Where your app serves wllama's one wasm file (never a public CDN), e.g. with Vite:
   * `import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url'`.
   */
  wasmUrl: string
  /** The name in traces and errors (default: the file's `general.name`, else the URL's file name). */
  name?: string
  /** Tokens of context to allocate (default 4096, at most what the model was trained with). */
  contextLength?: number
  /** CPU threads. More than one needs a cross-origin isolated page (default: 1, or half the cores up to 4 when isolated). */
  threads?: number
  /** Refuse models larger than this many bytes (default 3 GiB). */
  maxModelBytes?: number
  /** How long the engine may go without producing anything before it is shut down (default 120 s). */
  stallTimeoutMs?: number
  /** The reply's token limit when a prompt sets none (llama.cpp's own is the whole context). */
  maxTokens?: number
  onProgress?: (progress: WllamaLoadProgress) => void
  /** Stops the download or load; nothing stays running. */
  signal?: AbortSignal
}

export interface LoadedEngine {
  engine: WllamaEngine
  name: string
  threads: number
  contextLength: number
}

/** Checks the page and the file, then loads the model into a fresh wllama worker, or shuts it down again. */
export async function loadEngine(options: WllamaCreateOptions): Promise<LoadedEngine> {
  if (!options?.model) throw new TypeError('WllamaChatModel.create needs model: a GGUF URL or Blob')
  if (!options.wasmUrl)
    throw new TypeError(
      "WllamaChatModel.create needs wasmUrl: where your app serves @wllama/wllama/esm/wasm/wllama.wasm (with Vite: import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url')",
    )
  const { model, signal } = options
  const label = options.name ?? (typeof model === 'string' ? fileName(model) : 'gguf')
  const threads = threadCount(options.threads, label)
  const maxBytes = options.maxModelBytes ?? DEFAULT_MAX_MODEL_BYTES
  if (typeof model === 'string' && !/\.gguf$/i.test(fileName(model)))
    throw wllamaFailure('not-gguf', label, `The URL ${model} does not end in .gguf, which wllama requires`)
  if (typeof model !== 'string') await checkBlob(model, maxBytes, label)
  throwIfAborted(signal)

  const { Wllama } = await loadWllama()
  const log = new NativeLog()
  const wllama = new Wllama({ default: options.wasmUrl }, { logger: log.logger })
  // Without this, browsers lacking JSPI or Memory64 fetch compatibility files from a public CDN.
  wllama.setCompat(null)
  const download = new AbortController()
  const onAbort = () => download.abort(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  let tooLarge: number | undefined
  try {
    let blobs: Blob[]
    if (typeof model === 'string') {
      // The download runs in a worker, where a relative URL has no base.
      const location = (globalThis as { location?: { href: string } }).location
      const url = location ? new URL(model, location.href).href : model
      const cached = await wllama.modelManager.getModelOrDownload(
        { url },
        {
          signal: download.signal,
          progressCallback: ({ loaded, total }) => {
            if (total > maxBytes && tooLarge === undefined) {
              tooLarge = total
              download.abort()
            }
            options.onProgress?.(progress(loaded, total))
          },
        },
      )
      blobs = await cached.open()
      // A model read from the origin's storage is checked like a Blob (it may predate the limit).
      for (const blob of blobs) await checkBlob(blob, maxBytes, label)
    } else blobs = [model]
    const size = blobs.reduce((sum, blob) => sum + blob.size, 0)
    options.onProgress?.(progress(size, size))
    const params: LoadModelParams = { n_ctx: options.contextLength ?? 4096, n_threads: threads }
    await raceSignal(wllama.loadModel(blobs, params), signal)
    throwIfAborted(signal)
    const info = wllama.getLoadedContextInfo()
    // A file that is not GGUF loads "successfully" with an empty vocabulary and fails on first use.
    if (!info || !(info.n_vocab > 0)) throw wllamaFailure('not-gguf', label, log.firstError() ?? 'it has no vocabulary')
    const name = options.name ?? info.metadata?.['general.name'] ?? label
    attachLog(wllama, log)
    return { engine: wllama, name, threads, contextLength: info.n_ctx }
  } catch (error) {
    await wllama.exit().catch(() => {})
    if (error instanceof ChatModelError) throw error
    if (tooLarge !== undefined)
      throw wllamaFailure(
        'too-large',
        label,
        `It is ${megabytes(tooLarge)} MB, over the ${megabytes(maxBytes)} MB limit`,
      )
    if (signal?.aborted) throw abortError(signal)
    throw wllamaError(error, label, log.firstError())
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

/** One thread unless the page is cross-origin isolated (threads share memory, which needs isolation). */
function threadCount(requested: number | undefined, label: string): number {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true
  if (requested !== undefined) {
    if (!Number.isInteger(requested) || requested < 1)
      throw new TypeError(`threads must be a whole number from 1, got ${String(requested)}`)
    if (requested > 1 && !isolated)
      throw wllamaFailure(
        'not-isolated',
        label,
        `${requested} threads were asked for, but this page is not cross-origin isolated`,
      )
    return requested
  }
  if (!isolated) return 1
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2
  return Math.max(1, Math.min(4, Math.floor(cores / 2)))
}

async function checkBlob(model: Blob, maxBytes: number, label: string): Promise<void> {
  if (model.size > maxBytes)
    throw wllamaFailure(
      'too-large',
      label,
      `It is ${megabytes(model.size)} MB, over the ${megabytes(maxBytes)} MB limit`,
    )
  const magic = new Uint8Array(await model.slice(0, 4).arrayBuffer())
  if (String.fromCharCode(...magic) !== 'GGUF')
    throw wllamaFailure(
      'not-gguf',
      label,
      `It starts with ${JSON.stringify(String.fromCharCode(...magic))}, not "GGUF"`,
    )
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function progress(loaded: number, total: number): WllamaLoadProgress {
  const fraction = total > 0 ? Math.min(1, loaded / total) : 0
  return {
    fraction,
    loadedMB: megabytes(loaded),
    ...(total > 0 ? { totalMB: megabytes(total) } : {}),
    text:
      total > 0
        ? `Loading model: ${megabytes(loaded)} of ${megabytes(total)} MB`
        : `Loading model: ${megabytes(loaded)} MB`,
  }
}

const megabytes = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10

function fileName(url: string): string {
  const path = url.split(/[?#]/)[0] ?? url
  return path.slice(path.lastIndexOf('/') + 1) || url
}
