import type { ChatModel, ChatResponse, Prompt } from '../core'
import type { ErrorContext } from './errors'
import { postJson, readJson } from './http'
import { fromAnthropicMessage, toAnthropicRequest } from './anthropic-mapping'
import { readAnthropicStream } from './anthropic-stream'
import { registerModelSecrets } from './secrets'
import { OPENAI_ATTACHMENTS, withAttachments, type AttachmentRules } from './attachments'

/** Anthropic Messages: OpenAI's image and document types, images up to 5 MB each, PDFs as links too. */
const ANTHROPIC_ATTACHMENTS: AttachmentRules = {
  ...OPENAI_ATTACHMENTS,
  maxImageBytes: 5 * 1024 * 1024,
  documentUrls: true,
}

export interface AnthropicChatModelOptions {
  /** Default `https://api.anthropic.com`. */
  baseURL?: string
  apiKey?: string
  model: string
  /** Required by the API on every request; a prompt's `maxTokens` wins (default 1024). */
  maxTokens?: number
  headers?: Record<string, string>
  fetch?: typeof fetch
  /** The model's context window in tokens, which the API does not say: sessions compact to fit it (`ContextWindowTrigger`). */
  contextWindow?: number
}

export const ANTHROPIC_VERSION = '2023-06-01'

/** A Claude model behind the Anthropic Messages API, callable straight from a browser page. */
export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic'
  readonly #options: AnthropicChatModelOptions
  readonly #url: string
  readonly #context: ErrorContext

  constructor(options: AnthropicChatModelOptions) {
    if (!options?.model)
      throw new TypeError('AnthropicChatModel needs a model name, e.g. { model: "claude-sonnet-4-5" }')
    registerModelSecrets(options)
    this.#options = options
    this.#url = `${(options.baseURL ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`
    this.#context = { provider: this.provider, label: 'Anthropic', model: options.model }
  }

  /** The window given in the options. */
  get contextWindow(): number | undefined {
    return this.#options.contextWindow
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    const response = await postJson(this.#url, await this.#body(prompt, false), this.#http(signal), this.#context)
    return fromAnthropicMessage(await readJson<unknown>(response, signal, this.#context), this.#context)
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    const response = await postJson(this.#url, await this.#body(prompt, true), this.#http(signal), this.#context)
    yield* readAnthropicStream(response, signal, this.#context, prompt.options.toolCallDeltas === true)
  }

  /** Attachments are checked before anything is sent; Blobs are read into the JSON body. */
  async #body(prompt: Prompt, stream: boolean): Promise<Record<string, unknown>> {
    return toAnthropicRequest(
      this.#options.model,
      this.#options.maxTokens ?? 1024,
      await withAttachments(prompt.messages, ANTHROPIC_ATTACHMENTS, this.#context),
      prompt.options,
      stream,
    )
  }

  #http(signal: AbortSignal | undefined) {
    const headers: Record<string, string> = {
      'anthropic-version': ANTHROPIC_VERSION,
      // Anthropic refuses browser requests (CORS) unless the page says it knows the key is exposed.
      'anthropic-dangerous-direct-browser-access': 'true',
      ...this.#options.headers,
    }
    if (this.#options.apiKey) headers['x-api-key'] = this.#options.apiKey
    return { fetch: this.#options.fetch, headers, signal }
  }
}
