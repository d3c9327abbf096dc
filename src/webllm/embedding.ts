import type { MLCEngineInterface } from '@mlc-ai/web-llm'
import { raceAbort, throwIfAborted, wholeNumber } from '../core'
import { ChatModelError } from '../models'
import type { EmbeddingModel } from '../retrieval'
import { webllmError } from './errors'

/** The part of WebLLM's engine an embedding model uses: `embeddings.create`. */
export interface WebLLMEmbeddingEngine {
  embeddings: Pick<MLCEngineInterface['embeddings'], 'create'>
}

export interface WebLLMEmbeddingModelOptions {
  /**
   * An engine with one of WebLLM's embedding models loaded, e.g.
   * `await CreateWebWorkerMLCEngine(worker, 'snowflake-arctic-embed-s-q0f32-MLC-b4')`.
   */
  engine: WebLLMEmbeddingEngine
  /** The loaded model's id, when the engine holds several. */
  model?: string
  /** Texts per engine call (default 4: the `-b4` builds embed four at a time). */
  batchSize?: number
  /** The longest text in characters (default 2,000: WebLLM's embedding models read 512 tokens). */
  maxInputLength?: number
}

/**
 * Embeddings computed in the page by WebLLM (on WebGPU): the documents never leave the device.
 * WebLLM cannot stop an embedding half-way; an abort settles the call at once and the engine
 * finishes its batch in the background.
 */
export class WebLLMEmbeddingModel implements EmbeddingModel {
  readonly provider = 'webllm'
  readonly maxInputLength: number
  readonly #engine: WebLLMEmbeddingEngine
  readonly #model: string | undefined
  readonly #batchSize: number

  constructor(options: WebLLMEmbeddingModelOptions) {
    if (typeof options?.engine?.embeddings?.create !== 'function')
      throw new TypeError('WebLLMEmbeddingModel needs a WebLLM engine with an embedding model loaded: { engine }')
    this.#engine = options.engine
    this.#model = options.model
    this.#batchSize = wholeNumber('batchSize', options.batchSize ?? 4, 1)
    this.maxInputLength = wholeNumber('maxInputLength', options.maxInputLength ?? 2_000, 1)
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const vectors: Float32Array[] = []
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      throwIfAborted(options.signal)
      const input = texts.slice(start, start + this.#batchSize)
      let answer: Awaited<ReturnType<WebLLMEmbeddingEngine['embeddings']['create']>>
      try {
        answer = await raceAbort(
          this.#engine.embeddings.create({ input, ...(this.#model ? { model: this.#model } : {}) }),
          options.signal,
        )
      } catch (error) {
        if (options.signal?.aborted) throw error
        throw webllmError(error, this.#model ?? 'the embedding model')
      }
      vectors.push(...this.#vectorsOf(answer?.data, input.length))
    }
    return vectors
  }

  #vectorsOf(data: unknown, count: number): Float32Array[] {
    if (!Array.isArray(data) || data.length !== count)
      throw this.#invalid(`${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} texts`)
    const vectors = new Array<Float32Array>(count)
    for (const item of data as Array<{ index?: unknown; embedding?: unknown }>) {
      const { index, embedding } = item ?? {}
      if (typeof index !== 'number' || !(index >= 0 && index < count) || vectors[index] || !Array.isArray(embedding))
        throw this.#invalid(`an embedding with index ${String(index)}`)
      vectors[index] = Float32Array.from(embedding as number[])
    }
    return vectors
  }

  #invalid(what: string): ChatModelError {
    return new ChatModelError(`WebLLM answered embeddings.create with ${what}`, {
      provider: this.provider,
      code: 'invalid_response',
      retryable: false,
    })
  }
}
