import type { ChatCompletionChunk, CompletionUsage } from '@mlc-ai/web-llm'
import {
  abortError,
  raceAbort,
  throwIfAborted,
  type ToolCall,
  type ChatModel,
  type ChatResponse,
  type Prompt,
} from '../core'
import {
  AnswerStreamer,
  constrainedEnd,
  finishChunk,
  reasoningChunk,
  textChunk,
  withAttachments,
  type AttachmentRules,
} from '../models'
import { createEngine, type WebLLMCreateOptions } from './create'
import { defaultToolStrategy, type ToolStrategy, type WebLLMEngine } from './engine'
import { webllmError } from './errors'
import { toWebLLMRequest } from './request'
import { fromCompletion, nativeToolCalls, usageMetadata } from './response'
import { ThinkSplitter, type Split } from './think'

export interface WebLLMChatModelOptions {
  /** The WebLLM model id, e.g. `Qwen3-1.7B-q4f16_1-MLC`. */
  model: string
  /** How tools reach the model (default: `native` for WebLLM's function-calling models, else `constrained-json`). */
  toolStrategy?: ToolStrategy
  /** Whether the model reads images (default: WebLLM's vision models, whose ids say `vision`). */
  vision?: boolean
  /** The tokens it reads at once: its `context_window_size` (`create()` reads it from the model list). */
  contextWindow?: number
}

/** An in-browser model on WebGPU (WebLLM), in a Web Worker or on the main thread, as a ChatModel. */
export class WebLLMChatModel implements ChatModel {
  readonly provider = 'webllm'
  // WebLLM decodes under a JSON-Schema grammar.
  readonly supportsNativeStructuredOutput = true
  readonly model: string
  readonly toolStrategy: ToolStrategy
  readonly vision: boolean
  readonly contextWindow?: number
  readonly #attachments: AttachmentRules
  #turn = 0

  constructor(
    readonly engine: WebLLMEngine,
    options: WebLLMChatModelOptions,
  ) {
    if (!options?.model) throw new TypeError('WebLLMChatModel needs the model id the engine runs')
    this.model = options.model
    this.toolStrategy = options.toolStrategy ?? defaultToolStrategy(options.model)
    this.vision = options.vision ?? /vision/i.test(options.model)
    if (options.contextWindow !== undefined) this.contextWindow = options.contextWindow
    this.#attachments = {
      imageTypes: this.vision ? ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] : [],
      // WebLLM decodes images in the page; past this a photo only costs memory and time.
      maxImageBytes: 20 * 1024 * 1024,
      documentTypes: [],
      maxDocumentBytes: 0,
      documentUrls: false,
      noImagesHint: 'Pick a vision model (e.g. Phi-3.5-vision-instruct-q4f16_1-MLC) or send text only.',
    }
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    throwIfAborted(signal)
    const request = { ...(await this.#request(prompt)), stream: false as const }
    const constrained = this.#constrained(prompt)
    const salt = `${this.model}:${this.#turn++}`
    const onAbort = () => this.engine.interruptGenerate()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const completion = await raceAbort(this.engine.chatCompletion(request), signal)
      return fromCompletion(completion, this.model, constrained, salt)
    } catch (error) {
      if (signal?.aborted) throw abortError(signal)
      throw error instanceof SyntaxError ? invalidOutput(error, this.model) : webllmError(error, this.model)
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    throwIfAborted(signal)
    const request = {
      ...(await this.#request(prompt)),
      stream: true as const,
      stream_options: { include_usage: true },
    }
    const constrained = this.#constrained(prompt)
    const salt = `${this.model}:${this.#turn++}`
    const started = performance.now()
    const onAbort = () => this.engine.interruptGenerate()
    signal?.addEventListener('abort', onAbort, { once: true })
    let finished = false
    try {
      let chunks: AsyncIterable<ChatCompletionChunk>
      try {
        chunks = await raceAbort(this.engine.chatCompletion(request), signal)
      } catch (error) {
        throw signal?.aborted ? abortError(signal) : webllmError(error, this.model)
      }
      const answer = constrained ? new AnswerStreamer() : undefined
      // Qwen3 and R1 distills open with a <think> block: it streams as reasoning, never as the answer.
      const thinking = new ThinkSplitter()
      let firstToken: number | undefined
      let usage: CompletionUsage | undefined
      let finishReason: string | undefined
      let nativeCalls: ToolCall[] = []
      const iterator = chunks[Symbol.asyncIterator]()
      for (;;) {
        let step: IteratorResult<ChatCompletionChunk>
        try {
          step = await raceAbort(iterator.next(), signal)
        } catch (error) {
          throw signal?.aborted ? abortError(signal) : webllmError(error, this.model)
        }
        if (step.done) break
        const chunk = step.value
        usage = chunk.usage ?? usage
        const choice = chunk.choices[0]
        if (!choice) continue
        finishReason = choice.finish_reason ?? finishReason
        if (choice.delta.tool_calls?.length) nativeCalls = nativeToolCalls(choice.delta.tool_calls, salt)
        const content = choice.delta.content ?? ''
        if (!content) continue
        firstToken ??= performance.now() - started
        yield* this.#delivered(thinking.push(content), answer)
      }
      yield* this.#delivered(thinking.flush(), answer)
      finished = true
      const end = answer
        ? constrainedEnd(answer, salt, (error) => invalidOutput(error, this.model))
        : { toolCalls: nativeCalls, text: '' }
      if (end.text) yield textChunk(end.text)
      yield finishChunk(end.toolCalls, finishReason, usageMetadata(usage, this.model, firstToken))
    } finally {
      signal?.removeEventListener('abort', onAbort)
      // A reader that stops early (or an abort) must not leave the GPU generating.
      if (!finished) this.engine.interruptGenerate()
    }
  }

  /** Checks WebGPU, then loads the model in a Web Worker (default) or on the main thread, or wraps `engine`. */
  static async create(options: WebLLMCreateOptions): Promise<WebLLMChatModel> {
    const { engine, ...settings } = await createEngine(options)
    return new WebLLMChatModel(engine, settings)
  }

  /** The chunks for a split delta: reasoning as is, text through the JSON envelope reader when constrained. */
  *#delivered(split: Split, answer: AnswerStreamer | undefined): Generator<ChatResponse> {
    if (split.reasoning) yield reasoningChunk(split.reasoning)
    const text = answer && split.text ? answer.push(split.text) : split.text
    if (text) yield textChunk(text)
  }

  /** Attachments are checked before the engine sees anything; Blobs are read into data URLs. */
  async #request(prompt: Prompt) {
    const context = { provider: this.provider, label: 'WebLLM', model: this.model }
    const messages = await withAttachments(prompt.messages, this.#attachments, context)
    return toWebLLMRequest({ ...prompt, messages: [...messages] }, this.toolStrategy)
  }

  /** With tools and no native support, the reply is the constrained JSON envelope. */
  #constrained(prompt: Prompt): boolean {
    return this.toolStrategy === 'constrained-json' && (prompt.options.tools?.length ?? 0) > 0
  }
}

function invalidOutput(error: Error, model: string) {
  return webllmError(
    Object.assign(
      new Error(
        `${error.message}. Retrying usually helps (a RetryAdvisor does it); a larger maxTokens avoids cut-off replies.`,
      ),
      {
        name: 'InvalidOutputError',
      },
    ),
    model,
  )
}
