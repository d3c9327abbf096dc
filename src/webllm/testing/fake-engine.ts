import type {
  AppConfig,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatCompletionRequestNonStreaming,
  ChatCompletionRequestStreaming,
  ChatCompletionRequestBase,
  ChatOptions,
  CompletionUsage,
  InitProgressCallback,
  MLCEngineInterface,
} from '@mlc-ai/web-llm'

// A test double of a WebLLM engine, type-checked against WebLLM's own interface (it fails to
// compile if WebLLM's types change). It behaves like WebLLM where the adapter must cope: null
// content throws, a non-string schema throws, the messages array is changed in place, native tool
// calls come without ids in the last chunk, and a stream stops when interrupted.

export type FakeReply =
  | string
  | {
      content?: string
      toolCalls?: Array<{ name: string; arguments: string }>
      error?: string | Error
      finishReason?: 'stop' | 'length'
    }

export type FakeEngine = Pick<
  MLCEngineInterface,
  | 'chatCompletion'
  | 'interruptGenerate'
  | 'reload'
  | 'unload'
  | 'setAppConfig'
  | 'setInitProgressCallback'
  | 'getInitProgressCallback'
>

export class FakeWebLLMEngine implements FakeEngine {
  /** Every request, copied when it arrived. */
  readonly requests: ChatCompletionRequest[] = []
  interrupts = 0
  reloaded: string[] = []
  #interrupted = false
  #turn = 0

  constructor(
    private readonly replies: FakeReply[] | ((request: ChatCompletionRequest, turn: number) => FakeReply),
    private readonly options: { chunkSize?: number; delayMs?: number } = {},
  ) {}

  #progress: InitProgressCallback | undefined

  setAppConfig(_appConfig: AppConfig): void {}

  setInitProgressCallback(callback: InitProgressCallback): void {
    this.#progress = callback
  }

  getInitProgressCallback(): InitProgressCallback | undefined {
    return this.#progress
  }

  async reload(modelId: string | string[], _chatOpts?: ChatOptions | ChatOptions[]): Promise<void> {
    this.#progress?.({ progress: 1, timeElapsed: 0, text: `Loaded ${String(modelId)} (fake engine)` })
    this.reloaded.push(String(modelId))
  }

  async unload(): Promise<void> {}

  interruptGenerate(): void {
    this.interrupts++
    this.#interrupted = true
  }

  chatCompletion(request: ChatCompletionRequestNonStreaming): Promise<ChatCompletion>
  chatCompletion(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>>
  chatCompletion(request: ChatCompletionRequestBase): Promise<AsyncIterable<ChatCompletionChunk> | ChatCompletion>
  chatCompletion(request: ChatCompletionRequest): Promise<AsyncIterable<ChatCompletionChunk> | ChatCompletion>
  async chatCompletion(request: ChatCompletionRequest): Promise<AsyncIterable<ChatCompletionChunk> | ChatCompletion> {
    const received = structuredClone(request)
    this.requests.push(received)
    for (const message of request.messages) {
      // As WebLLM checks: only a user turn may hold parts, with at most one text part.
      if (message.role === 'user' && Array.isArray(message.content)) {
        if (message.content.filter((part) => part.type === 'text').length > 1)
          throw Object.assign(new Error('Each message can have at most one text contentPart'), {
            name: 'MultipleTextContentError',
          })
      } else if (typeof message.content !== 'string')
        throw Object.assign(new Error('Content of assistant or tool messages must be a string'), {
          name: 'ContentTypeError',
        })
    }
    const format = request.response_format as { schema?: unknown } | undefined
    if (format?.schema !== undefined && typeof format.schema !== 'string')
      throw new Error('response_format.schema must be a string')
    // The main-thread engine rewrites the array it is given.
    request.messages.splice(0, request.messages.length)
    const turn = this.#turn++
    const scripted = typeof this.replies === 'function' ? this.replies(received, turn) : this.replies[turn]
    if (scripted === undefined) throw new Error(`FakeWebLLMEngine has no reply for request #${turn + 1}`)
    const reply = typeof scripted === 'string' ? { content: scripted } : scripted
    if (reply.error) throw typeof reply.error === 'string' ? new Error(reply.error) : reply.error
    this.#interrupted = false
    const usage: CompletionUsage = {
      prompt_tokens: 50,
      completion_tokens: 10,
      total_tokens: 60,
      extra: {
        e2e_latency_s: 0.5,
        prefill_tokens_per_s: 500,
        decode_tokens_per_s: 20,
        time_to_first_token_s: 0.1,
        time_per_output_token_s: 0.05,
      },
    }
    const toolCalls = reply.toolCalls?.map((call) => ({ type: 'function' as const, function: call }))
    if (!request.stream) {
      return {
        id: `fake-${turn}`,
        object: 'chat.completion',
        created: 0,
        model: 'fake',
        choices: [
          {
            index: 0,
            finish_reason: toolCalls ? 'tool_calls' : (reply.finishReason ?? 'stop'),
            logprobs: null,
            message: {
              role: 'assistant',
              content: toolCalls ? null : (reply.content ?? ''),
              ...(toolCalls ? { tool_calls: toolCalls.map((call, index) => ({ id: '', index, ...call })) } : {}),
            },
          },
        ],
        usage,
      }
    }
    return this.#stream(
      reply.content ?? '',
      toolCalls,
      reply.finishReason,
      request.stream_options?.include_usage ? usage : undefined,
    )
  }

  async *#stream(
    content: string,
    toolCalls: Array<{ type: 'function'; function: { name: string; arguments: string } }> | undefined,
    finishReason: 'stop' | 'length' | undefined,
    usage: CompletionUsage | undefined,
  ): AsyncGenerator<ChatCompletionChunk> {
    const size = this.options.chunkSize ?? 4
    const base = { id: 'fake', object: 'chat.completion.chunk' as const, created: 0, model: 'fake' }
    for (let i = 0; i < content.length; i += size) {
      if (this.#interrupted) return
      if (this.options.delayMs) await new Promise((resolve) => setTimeout(resolve, this.options.delayMs))
      yield { ...base, choices: [{ index: 0, finish_reason: null, delta: { content: content.slice(i, i + size) } }] }
    }
    yield {
      ...base,
      choices: [
        {
          index: 0,
          finish_reason: toolCalls ? 'tool_calls' : (finishReason ?? 'stop'),
          delta: toolCalls ? { tool_calls: toolCalls.map((call, index) => ({ index, ...call })) } : {},
        },
      ],
      ...(usage ? { usage } : {}),
    }
  }
}
