import type { ChatModel, ChatOptions, ChatResponse, Prompt } from '../core'
import { labelOf } from './base-url'
import type { ErrorContext } from './errors'
import { bearerHttp, postJson, readJson } from './http'
import { registerModelSecrets } from './secrets'
import { serverSentEvents } from './sse'
import { fromResponsesBody, toResponsesRequest } from './openai-responses-mapping'
import { ResponsesStreamReader } from './openai-responses-stream'
import { OPENAI_ATTACHMENTS, withAttachments } from './attachments'

export interface OpenAIResponsesChatModelOptions {
  /** Default `https://api.openai.com/v1`; the adapter posts to `${baseURL}/responses`. */
  baseURL?: string
  apiKey?: string
  model: string
  headers?: Record<string, string>
  fetch?: typeof fetch
  /** Options under every prompt's own. */
  defaultOptions?: ChatOptions
  /** The model's context window in tokens, which the API does not say: sessions compact to fit it (`ContextWindowTrigger`). */
  contextWindow?: number
}

/**
 * A model behind OpenAI's Responses API, where reasoning models put their reasoning items. Stateless:
 * every request sends the whole conversation, reasoning items included, so the tool loop is unchanged.
 */
export class OpenAIResponsesChatModel implements ChatModel {
  readonly provider = 'openai-responses'
  readonly supportsNativeStructuredOutput = true
  readonly #options: OpenAIResponsesChatModelOptions
  readonly #url: string
  readonly #context: ErrorContext

  constructor(options: OpenAIResponsesChatModelOptions) {
    if (!options?.model)
      throw new TypeError('OpenAIResponsesChatModel needs a model name, e.g. { model: "gpt-5-mini" }')
    this.#options = options
    const baseURL = (options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')
    this.#url = `${baseURL}/responses`
    this.#context = { provider: this.provider, label: labelOf(baseURL), model: options.model }
    registerModelSecrets(options)
  }

  /** The window given in the options. */
  get contextWindow(): number | undefined {
    return this.#options.contextWindow
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    const response = await this.#post(prompt, false, signal)
    return fromResponsesBody(await readJson<unknown>(response, signal, this.#context), this.#context)
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    const response = await this.#post(prompt, true, signal)
    const reader = new ResponsesStreamReader(this.#context, prompt.options.toolCallDeltas === true)
    for await (const event of serverSentEvents(response, signal, this.#context)) yield* reader.read(event)
    yield reader.finish()
  }

  /** Posts the prompt. Attachments are checked before anything is sent; Blobs are read into the JSON body. */
  async #post(prompt: Prompt, stream: boolean, signal: AbortSignal | undefined): Promise<Response> {
    const options = { ...this.#options.defaultOptions, ...prompt.options }
    const messages = await withAttachments(prompt.messages, OPENAI_ATTACHMENTS, this.#context)
    const body = toResponsesRequest(this.#options.model, messages, options, stream)
    return postJson(this.#url, body, bearerHttp(this.#options, signal), this.#context)
  }
}
