import type { ChatModel, ChatOptions, ChatResponse, Prompt } from '../core'
import { labelOf } from './base-url'
import type { ErrorContext } from './errors'
import { bearerHttp, postJson, readJson } from './http'
import { fromOpenAICompletion } from './openai-mapping'
import { toOpenAIRequest } from './openai-request'
import { readOpenAIStream } from './openai-stream'
import { registerModelSecrets } from './secrets'
import { OPENAI_ATTACHMENTS, withAttachments } from './attachments'

export interface OpenAIChatModelOptions {
  /** Default `https://api.openai.com/v1`; any server that speaks Chat Completions works. */
  baseURL?: string
  /** Sent as `Authorization: Bearer …`; local servers usually need none. */
  apiKey?: string
  model: string
  headers?: Record<string, string>
  fetch?: typeof fetch
  /** Options under every prompt's own. */
  defaultOptions?: ChatOptions
  /** Whether `responseFormat: json_schema` is honoured by the server (default true). */
  nativeStructuredOutput?: boolean
  /** The model's context window in tokens, which the API does not say: sessions compact to fit it (`ContextWindowTrigger`). */
  contextWindow?: number
}

/** A model behind the OpenAI Chat Completions API or any server that imitates it. */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai'
  readonly supportsNativeStructuredOutput: boolean
  readonly #options: OpenAIChatModelOptions
  readonly #url: string
  readonly #context: ErrorContext

  constructor(options: OpenAIChatModelOptions) {
    if (!options?.model) throw new TypeError('OpenAIChatModel needs a model name, e.g. { model: "gpt-4o-mini" }')
    registerModelSecrets(options)
    this.#options = options
    const baseURL = (options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')
    this.#url = `${baseURL}/chat/completions`
    this.supportsNativeStructuredOutput = options.nativeStructuredOutput ?? true
    this.#context = { provider: this.provider, label: labelOf(baseURL), model: options.model }
  }

  /** The window given in the options. */
  get contextWindow(): number | undefined {
    return this.#options.contextWindow
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    const response = await this.#post(prompt, false, signal)
    return fromOpenAICompletion(await readJson<unknown>(response, signal, this.#context), this.#context)
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    const response = await this.#post(prompt, true, signal)
    yield* readOpenAIStream(response, signal, this.#context, prompt.options.toolCallDeltas === true)
  }

  /** Posts the prompt. Attachments are checked before anything is sent; Blobs are read into the JSON body. */
  async #post(prompt: Prompt, stream: boolean, signal: AbortSignal | undefined): Promise<Response> {
    const options = { ...this.#options.defaultOptions, ...prompt.options }
    const messages = await withAttachments(prompt.messages, OPENAI_ATTACHMENTS, this.#context)
    const body = toOpenAIRequest(this.#options.model, messages, options, stream, this.#context.label)
    return postJson(this.#url, body, bearerHttp(this.#options, signal), this.#context)
  }
}
