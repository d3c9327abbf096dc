import {
  setOption,
  LOWEST_PRECEDENCE,
  advisorOrder,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  type Advisor,
  emitChainEvent,
  streamStage,
  startRoundOver,
  ChatResponseAggregator,
  appendToLastUserMessage,
  addUsage,
  hasToolCalls,
  type ChatResponse,
  type Usage,
  wholeNumber,
  withUsage,
} from '../core'
import {
  extractJson,
  formatIssues,
  type OutputParseError,
  parseEntity,
  resolveSchema,
  type ResolvedSchema,
  type SchemaLike,
} from '../schema'

export interface StructuredOutputValidationAdvisorOptions {
  outputSchema: SchemaLike
  /** Extra model calls after the first when the output is invalid (default 3). */
  maxRepeatAttempts?: number
  advisorOrder?: number
}

/**
 * Validates the model's JSON answer against a schema and, while it is invalid, re-runs the rest
 * of the chain with the original request and the errors appended to its last user message.
 */
export class StructuredOutputValidationAdvisor implements CallAdvisor, StreamAdvisor {
  static readonly DEFAULT_ORDER = LOWEST_PRECEDENCE - 2000

  readonly name = 'Structured Output Validation Advisor'
  readonly order: number
  readonly #schema: ResolvedSchema
  readonly #maxRepeatAttempts: number

  constructor(options: StructuredOutputValidationAdvisorOptions) {
    if (!options?.outputSchema) throw new Error('outputSchema must be set')
    const attempts = options.maxRepeatAttempts ?? 3
    if (!(attempts >= 0)) throw new RangeError('repeatAttempts must be greater than or equal to 0')
    wholeNumber('maxRepeatAttempts', attempts, 0)
    this.order = advisorOrder(options.advisorOrder ?? StructuredOutputValidationAdvisor.DEFAULT_ORDER)
    this.#maxRepeatAttempts = attempts
    this.#schema = resolveSchema(options.outputSchema, 'output')
  }

  static builder(): StructuredOutputValidationAdvisorBuilder {
    return new StructuredOutputValidationAdvisorBuilder()
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    let usage: Usage | undefined
    let next: ChatClientRequest | undefined = request
    for (let attempt = 1; ; attempt++) {
      const started = performance.now()
      const response = await chain.copy(this).nextCall(next)
      usage = addUsage(usage, response.chatResponse?.metadata.usage)
      next = await this.#judge(request, response.chatResponse, attempt, started, chain.callAdvisors)
      if (!next) return withUsage(response, usage)
    }
  }

  /**
   * The same attempts as a stream: each attempt's chunks pass on as they come; when its answer is
   * invalid, a `validation-attempt` event with `retryWith` says the next attempt starts (a reader
   * starts its partial values over there), and the next attempt streams on.
   */
  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    let attempt = 1
    let started = performance.now()
    // Each attempt's answer, made when it opens.
    let answer: ChatResponseAggregator
    const open = (next: ChatClientRequest) => {
      answer = new ChatResponseAggregator()
      return chain.copy(this).nextStream(next)
    }
    return streamStage({
      open: () => open(request),
      chunk: (chunk: ChatClientResponse) => {
        if (chunk.chatResponse) answer.add(chunk.chatResponse)
        return chunk
      },
      end: async () => {
        const aggregate = answer.chunkCount > 0 ? answer.result() : null
        const next = await this.#judge(request, aggregate, attempt++, started, chain.streamAdvisors)
        started = performance.now()
        if (!next) return undefined
        startRoundOver(request.context)
        return { source: open(next) }
      },
    })
  }

  /** Validates one attempt's answer and reports it; gives the next attempt's request, or undefined when done. */
  async #judge(
    request: ChatClientRequest,
    response: ChatResponse | null,
    attempt: number,
    started: number,
    listeners: readonly Advisor[],
  ): Promise<ChatClientRequest | undefined> {
    // A tool call is not the answer yet: it goes back to the tool loop without using an attempt.
    if (hasToolCalls(response)) return undefined
    const errors = await this.#validate(response)
    const valid = !errors.length
    const retrying = !valid && attempt <= this.#maxRepeatAttempts
    const retryWith = `Output JSON validation failed because of: ${errors.join('; ')}`
    emitChainEvent(
      listeners,
      {
        type: 'validation-attempt',
        attempt,
        valid,
        errors,
        durationMs: performance.now() - started,
        output: response?.results[0]?.output.text ?? '',
        ...(retrying ? { retryWith } : {}),
      },
      request.context,
      this.name,
    )
    if (!retrying) return undefined
    return {
      ...request,
      prompt: { ...request.prompt, messages: appendToLastUserMessage(request.prompt.messages, retryWith) },
    }
  }

  /** What is wrong with the response's output, one text per issue: none when it is valid. */
  async #validate(response: ChatResponse | null): Promise<string[]> {
    const output = response?.results[0]?.output
    if (!output) return ['Missing required json output for validation.']
    if (extractJson(output.text) === '') return ['Empty JSON output for validation.']
    try {
      await parseEntity(output.text, this.#schema)
      return []
    } catch (error) {
      const { issues, message } = error as OutputParseError
      return issues.length
        ? issues.map((issue) => formatIssues([issue]))
        : // parseEntity's message holds the parser's in parentheses.
          [`Invalid JSON: ${message.slice(message.indexOf('(') + 1, -1)}`]
    }
  }
}

export class StructuredOutputValidationAdvisorBuilder {
  readonly #options: Partial<StructuredOutputValidationAdvisorOptions> = {}

  outputSchema(schema: SchemaLike): this {
    return setOption(this, this.#options, 'outputSchema', schema)
  }

  maxRepeatAttempts(attempts: number): this {
    return setOption(this, this.#options, 'maxRepeatAttempts', attempts)
  }

  advisorOrder(order: number): this {
    return setOption(this, this.#options, 'advisorOrder', order)
  }

  build(): StructuredOutputValidationAdvisor {
    return new StructuredOutputValidationAdvisor({ ...this.#options } as StructuredOutputValidationAdvisorOptions)
  }
}
