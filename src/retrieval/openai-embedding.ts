import { abortError, delay, wholeNumber } from '../core'
import { labelOf } from '../models/base-url'
import { ChatModelError, type ErrorContext } from '../models/errors'
import { postJson, readJson } from '../models/http'
import { registerModelSecrets } from '../models/secrets'
import { EmbeddingInputError, type EmbeddingModel } from './embedding-model'

export interface OpenAIEmbeddingModelOptions {
  /** Default `https://api.openai.com/v1`; any server with an OpenAI-style `/embeddings` works. */
  baseURL?: string
  /** Sent as `Authorization: Bearer …`; masked in every error and trace. */
  apiKey?: string
  model: string
  /** Shorter vectors, for the models that can give them (`text-embedding-3-*`). */
  dimensions?: number
  headers?: Record<string, string>
  fetch?: typeof fetch
  /** Texts per request (default 256; OpenAI takes up to 2048). */
  batchSize?: number
  /** Retries of a request that failed with a retryable error: rate limit, overload, network (default 2). */
  maxRetries?: number
  /**
   * The longest text in characters (default 24,000: well under OpenAI's 8,192 tokens for ordinary
   * prose). A longer one is refused before any request, by its position.
   */
  maxInputLength?: number
}

interface EmbeddingsAnswer {
  data?: Array<{ index?: unknown; embedding?: unknown }>
}

/**
 * Embeddings from OpenAI's `/embeddings` endpoint or a server that imitates it: texts go in batches,
 * one request after another; a request that fails with a retryable error is retried with backoff
 * (the server's retry-after first). A failure anywhere fails the whole call: no partial result.
 */
export class OpenAIEmbeddingModel implements EmbeddingModel {
  readonly provider = 'openai'
  readonly maxInputLength: number
  readonly #options: OpenAIEmbeddingModelOptions
  readonly #url: string
  readonly #context: ErrorContext
  readonly #batchSize: number
  readonly #maxRetries: number

  constructor(options: OpenAIEmbeddingModelOptions) {
    if (typeof options?.model !== 'string' || options.model.length === 0)
      throw new TypeError('OpenAIEmbeddingModel needs a model, e.g. { model: "text-embedding-3-small" }')
    registerModelSecrets(options)
    this.#options = options
    const baseURL = (options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')
    this.#url = `${baseURL}/embeddings`
    this.#context = { provider: this.provider, label: labelOf(baseURL), model: options.model }
    this.#batchSize = wholeNumber('batchSize', options.batchSize ?? 256, 1)
    this.#maxRetries = wholeNumber('maxRetries', options.maxRetries ?? 2, 0)
    this.maxInputLength = wholeNumber('maxInputLength', options.maxInputLength ?? 24_000, 1)
    if (options.dimensions !== undefined) wholeNumber('dimensions', options.dimensions, 1)
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    texts.forEach((text, index) => {
      if (typeof text !== 'string' || text.length === 0)
        throw new EmbeddingInputError(`text ${index} is empty: there is nothing to embed`, index)
      if (text.length > this.maxInputLength)
        throw new EmbeddingInputError(
          `text ${index} is ${text.length} characters long, over the limit of ${this.maxInputLength} for ${this.#options.model}`,
          index,
        )
    })
    const vectors: Float32Array[] = []
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = texts.slice(start, start + this.#batchSize)
      vectors.push(...(await this.#withRetries(() => this.#request(batch, start, options.signal), options.signal)))
    }
    return vectors
  }

  async #request(batch: readonly string[], offset: number, signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const { apiKey, headers, fetch, model, dimensions } = this.#options
    const body = { model, input: batch, encoding_format: 'float', ...(dimensions ? { dimensions } : {}) }
    let response: Response
    try {
      response = await postJson(
        this.#url,
        body,
        { fetch, signal, headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers } },
        this.#context,
      )
    } catch (error) {
      // A server that names the input it refused (`input[3]`): the caller can name the document.
      const named = error instanceof ChatModelError && error.status === 400 && /input\[(\d+)\]/.exec(error.message)
      if (named && Number(named[1]) < batch.length)
        throw new EmbeddingInputError(error.message, offset + Number(named[1]), { cause: error })
      if (error instanceof ChatModelError && error.code === 'endpoint_not_served') throw this.#notServed(error)
      throw error
    }
    return this.#vectorsOf(await readJson<EmbeddingsAnswer>(response, signal, this.#context), batch.length)
  }

  /** The answer's vectors in input order; anything not shaped like OpenAI's answer is an error. */
  #vectorsOf(answer: EmbeddingsAnswer, count: number): Float32Array[] {
    const data = answer?.data
    if (!Array.isArray(data) || data.length !== count)
      throw this.#invalid(
        `expected ${count} embeddings in 'data', got ${Array.isArray(data) ? data.length : typeof data}`,
      )
    const vectors: Float32Array[] = new Array<Float32Array>(count)
    data.forEach((item, position) => {
      const index = item?.index ?? position
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index])
        throw this.#invalid(`data[${position}].index is ${JSON.stringify(index)}`)
      vectors[index] = this.#vectorOf(item?.embedding, position)
    })
    return vectors
  }

  #vectorOf(embedding: unknown, position: number): Float32Array {
    if (typeof embedding === 'string') {
      // encoding_format 'base64': little-endian float32s.
      const bytes = Uint8Array.from(atob(embedding), (char) => char.charCodeAt(0))
      if (bytes.length % 4 !== 0) throw this.#invalid(`data[${position}].embedding is not whole float32 values`)
      return new Float32Array(bytes.buffer)
    }
    if (!Array.isArray(embedding) || embedding.length === 0)
      throw this.#invalid(`data[${position}].embedding is not an array of numbers`)
    const vector = new Float32Array(embedding.length)
    for (let i = 0; i < embedding.length; i++) {
      const value: unknown = embedding[i]
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw this.#invalid(`data[${position}].embedding[${i}] is ${JSON.stringify(value)}, not a finite number`)
      vector[i] = value
    }
    return vector
  }

  /** A model proxy (createModelProxy) that serves chat only: the model name is not what is wrong. */
  #notServed(error: ChatModelError): ChatModelError {
    return new ChatModelError(
      `${this.#context.label} is a model proxy that does not serve /embeddings (HTTP 404): add 'embeddings' to its endpoints on the server, createModelProxy({ …, endpoints: ['chat', 'embeddings'] }).`,
      { provider: this.provider, status: 404, code: 'endpoint_not_served', retryable: false, cause: error },
    )
  }

  #invalid(what: string): ChatModelError {
    return new ChatModelError(`${this.#context.label} answered /embeddings with an unexpected shape: ${what}`, {
      provider: this.provider,
      code: 'invalid_response',
      retryable: false,
    })
  }

  async #withRetries<T>(attempt: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await attempt()
      } catch (error) {
        if (signal?.aborted) throw abortError(signal)
        if (!(error instanceof ChatModelError) || !error.retryable || retry >= this.#maxRetries) throw error
        const backoff = Math.min(8_000, 500 * 2 ** retry) * (0.5 + Math.random() / 2)
        await delay(Math.max(backoff, error.retryAfterMs ?? 0), signal)
      }
    }
  }
}
