import type { ChatCompletionChunk, ChatCompletionUsage, ResultTimings } from '@wllama/wllama'
import {
  abortError,
  aggregateStream,
  pushedStream,
  throwIfAborted,
  type ChatModel,
  type ChatResponse,
  type Prompt,
} from '../core'
import { AnswerStreamer, ChatModelError, constrainedEnd, finishChunk, textChunk } from '../models'
import type { WllamaEngine } from './engine'
import { wllamaError, wllamaFailure } from './errors'
import { loadEngine, type WllamaCreateOptions } from './load'
import { logOf } from './native-log'
import { toWllamaRequest } from './request'
import { engineMetadata } from './response'

const DEFAULT_STALL_MS = 120_000
/** llama.cpp's refusal of a prompt longer than its context, which names the prompt's tokens. */
const OVER_WINDOW = /request \((\d+) tokens\) exceeds the available context/

export interface WllamaChatModelOptions {
  /** The model's name in traces and errors. */
  model: string
  /** How long the engine may go without producing anything before it is shut down (default 120 s). */
  stallTimeoutMs?: number
  /** The reply's token limit when a prompt sets none (llama.cpp's own is the whole context). */
  maxTokens?: number
}

/**
 * A GGUF model running on the CPU with llama.cpp compiled to WebAssembly (wllama), as a ChatModel.
 * Tools are called through JSON that llama.cpp's grammar holds to the tools' schemas.
 */
export class WllamaChatModel implements ChatModel {
  readonly provider = 'wllama'
  // llama.cpp decodes under a grammar made from the JSON Schema.
  readonly supportsNativeStructuredOutput = true
  readonly model: string
  readonly stallTimeoutMs: number
  readonly maxTokens: number | undefined
  #turn = 0
  #disposed = false

  constructor(
    readonly engine: WllamaEngine,
    options: WllamaChatModelOptions,
  ) {
    if (!options?.model) throw new TypeError('WllamaChatModel needs the name of the model the engine runs')
    this.model = options.model
    this.stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_MS
    this.maxTokens = options.maxTokens
  }

  /** Loads wllama (on first use), then the GGUF model from a URL or Blob; see WllamaCreateOptions. */
  static async create(options: WllamaCreateOptions): Promise<WllamaChatModel> {
    const { engine, name } = await loadEngine(options)
    return new WllamaChatModel(engine, {
      model: name,
      ...(options.stallTimeoutMs !== undefined ? { stallTimeoutMs: options.stallTimeoutMs } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    })
  }

  /** The context llama.cpp was loaded with (`n_ctx`): prompt and answer share it. */
  get contextWindow(): number | undefined {
    try {
      const window = this.engine.getLoadedContextInfo().n_ctx
      return Number.isSafeInteger(window) && window > 0 ? window : undefined
    } catch {
      // Not loaded (or disposed): no window to tell.
      return undefined
    }
  }

  /**
   * The prompt's tokens as llama.cpp counts them, exactly: the request this model would send,
   * rendered with the model file's chat template and tokenized with its own vocabulary, decoded for
   * no answer tokens. The prompt lands in the engine's cache, so the call that follows reads it from there.
   * A prompt longer than the window is counted all the same (from llama.cpp's refusal).
   */
  async countTokens(prompt: Prompt, signal?: AbortSignal): Promise<number> {
    throwIfAborted(signal)
    if (this.#disposed) throw wllamaFailure('disposed', this.model)
    // The grammar does not change the prompt's tokens; leaving it out saves compiling it.
    const { response_format: _grammar, ...params } = (await toWllamaRequest(prompt, this.model)).params
    const request = new AbortController()
    const counted = this.engine.createChatCompletion({
      ...params,
      max_tokens: 0,
      stream: false,
      abortSignal: request.signal,
    })
    try {
      const response = await this.#guard(counted, signal, request, logOf(this.engine)?.mark())
      return response.usage.prompt_tokens
    } catch (error) {
      const over =
        error instanceof ChatModelError && error.code === 'context-full' ? OVER_WINDOW.exec(error.message) : null
      if (over) return Number(over[1])
      throw error
    } finally {
      request.abort()
    }
  }

  call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    return aggregateStream(this.stream(prompt, signal))
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    throwIfAborted(signal)
    if (this.#disposed) throw wllamaFailure('disposed', this.model)
    const { params, constrained } = await toWllamaRequest(prompt, this.model)
    if (params.max_tokens === undefined && this.maxTokens !== undefined) params.max_tokens = this.maxTokens
    const salt = `${this.model}:${this.#turn++}`
    const request = new AbortController()
    const onAbort = () => request.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    const logMark = logOf(this.engine)?.mark()
    const started = performance.now()
    let finished = false
    // The engine's whole reply is one pull, its chunks pushed as they come. wllama's callback form,
    // not its async iterator: that one can reject a promise nobody awaits when a stream is aborted,
    // while here the engine's end or failure always settles the reader.
    const chunks = pushedStream<ChatCompletionChunk>((feed) => ({
      pull: () =>
        this.engine
          .createChatCompletion({
            ...params,
            stream: true,
            abortSignal: request.signal,
            onData: (chunk) => feed.push(chunk),
          })
          .then(() => feed.end()),
      stop: () => request.abort(),
    }))
    try {
      const answer = constrained ? new AnswerStreamer() : undefined
      let timings: ResultTimings | undefined
      let usage: ChatCompletionUsage | null | undefined
      let finishReason: string | undefined
      let firstToken: number | undefined
      for (;;) {
        const step = await this.#guard(chunks.next(), signal, request, logMark)
        if (step.done) break
        const chunk = step.value
        timings = chunk.timings ?? timings
        usage = chunk.usage ?? usage
        const choice = chunk.choices[0]
        if (!choice) continue
        finishReason = choice.finish_reason ?? finishReason
        const content = choice.delta.content ?? ''
        if (!content) continue
        firstToken ??= performance.now() - started
        const text = answer ? answer.push(content) : content
        if (text) yield textChunk(text)
      }
      finished = true
      const end = answer
        ? constrainedEnd(answer, salt, (error) => {
            // Most broken replies are cut off by the token limit: say so, since that has its own remedy.
            const cut =
              finishReason === 'length'
                ? `the reply was cut off at the token limit (${timings?.predicted_n ?? params.max_tokens ?? '?'} tokens), so `
                : ''
            return wllamaFailure('invalid-output', this.model, cut + error.message)
          })
        : { toolCalls: [], text: '' }
      if (end.text) yield textChunk(end.text)
      yield finishChunk(end.toolCalls, finishReason, engineMetadata(this.model, timings, usage, firstToken))
    } finally {
      signal?.removeEventListener('abort', onAbort)
      // A reader that stops early (or an abort) must not leave the engine decoding.
      if (!finished) await chunks.return!()
    }
  }

  /** Shuts the engine's worker down and frees its memory; the model cannot be used after. */
  async dispose(): Promise<void> {
    this.#disposed = true
    await this.engine.exit()
  }

  /**
   * One step of the engine, settled by the caller's abort, or by a stall: an engine that produces
   * nothing for stallTimeoutMs is shut down, so that nothing is left running.
   */
  #guard<T>(step: Promise<T>, signal: AbortSignal | undefined, request: AbortController, logMark?: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
      }
      const onAbort = () => {
        settle()
        reject(abortError(signal))
      }
      const timer = setTimeout(() => {
        settle()
        request.abort()
        this.#disposed = true
        void this.engine.exit().catch(() => {})
        reject(wllamaFailure('engine-unresponsive', this.model, `Nothing came for ${this.stallTimeoutMs} ms`))
      }, this.stallTimeoutMs)
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      step.then(
        (value) => {
          settle()
          resolve(value)
        },
        (error: unknown) => {
          settle()
          if (signal?.aborted) return reject(abortError(signal))
          const native = logMark === undefined ? undefined : logOf(this.engine)?.firstError(logMark)
          reject(wllamaError(error, this.model, native))
        },
      )
    })
  }
}
