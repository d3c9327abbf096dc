import type { ChatModel, ChatOptions, ChatResponse, Prompt } from '../core'
import type { ErrorContext } from './errors'
import { registerModelSecrets } from './secrets'
import { withAttachments } from './with-attachments'

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
    this.#context = { provider: this.provider, label: labelOf(baseURL), model: options.model, apiKey: options.apiKey }
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    const { postJson, readJson } = await import('./http')
    const body = await this.#body(prompt, false)
    // The response reader loads while the request is on its way.
    const [response, { fromOpenAICompletion }] = await Promise.all([
      postJson(this.#url, body, this.#http(signal), this.#context),
      import('./openai-mapping'),
    ])
    return fromOpenAICompletion(await readJson<unknown>(response, signal, this.#context), this.#context)
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    const { postJson } = await import('./http')
    const body = await this.#body(prompt, true)
    // The stream reader loads while the request is on its way.
    const [response, { readOpenAIStream }] = await Promise.all([
      postJson(this.#url, body, this.#http(signal), this.#context),
      import('./openai-stream'),
    ])
    yield* readOpenAIStream(response, signal, this.#context, prompt.options.toolCallDeltas === true)
  }

  /**
   * Attachments are checked before anything is sent; Blobs are read into the JSON body. The request
   * code (and the HTTP code in call and stream) loads with the first request: an app pays for it once it talks to a model.
   */
  async #body(prompt: Prompt, stream: boolean): Promise<Record<string, unknown>> {
    const options = { ...this.#options.defaultOptions, ...prompt.options }
    const [messages, { toOpenAIRequest }] = await Promise.all([
      withAttachments(prompt.messages, 'openai', this.#context),
      import('./openai-request'),
    ])
    // Attachments become content parts by code loaded only for a message that has them.
    const content = messages.some((message) => message.role === 'user' && message.parts !== undefined)
      ? (await import('./openai-user-content')).userContent
      : undefined
    return toOpenAIRequest(this.#options.model, messages, options, stream, content)
  }

  #http(signal: AbortSignal | undefined) {
    const headers: Record<string, string> = { ...this.#options.headers }
    if (this.#options.apiKey) headers['authorization'] = `Bearer ${this.#options.apiKey}`
    return { fetch: this.#options.fetch, headers, signal }
  }
}

function labelOf(baseURL: string): string {
  try {
    const host = new URL(baseURL).host
    return host === 'api.openai.com' ? 'OpenAI' : host
  } catch {
    return baseURL
  }
}
