import {
  LOWEST_PRECEDENCE,
  advisorOrder,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  emitChainEvent,
  appendToLastUserMessage,
  addUsage,
  hasToolCalls,
  type ChatResponse,
  type Usage,
  wholeNumber,
  withUsage,
} from '../core'
import { extractJson, formatIssues, parseJson, resolveSchema, type ResolvedSchema, type SchemaLike } from '../schema'

export interface StructuredOutputValidationAdvisorOptions {
  outputSchema: SchemaLike
  /** Extra model calls after the first when the output is invalid (default 3). */
  maxRepeatAttempts?: number
  advisorOrder?: number
}

type Verdict = { valid: true } | { valid: false; error: string; errors: string[] }

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
    let next = request
    for (let attempt = 1; ; attempt++) {
      const started = performance.now()
      const response = await chain.copy(this).nextCall(next)
      usage = addUsage(usage, response.chatResponse?.metadata.usage)
      // A tool call is not the answer yet: it goes back to the tool loop without using an attempt.
      if (hasToolCalls(response.chatResponse)) return withUsage(response, usage)
      const verdict = await this.#validate(response.chatResponse)
      const retrying = !verdict.valid && attempt <= this.#maxRepeatAttempts
      emitChainEvent(
        chain.callAdvisors,
        {
          type: 'validation-attempt',
          attempt,
          valid: verdict.valid,
          errors: verdict.valid ? [] : verdict.errors,
          durationMs: performance.now() - started,
          output: response.chatResponse?.results[0]?.output.text ?? '',
          ...(retrying ? { retryWith: feedback(verdict) } : {}),
        },
        response.context,
        this.name,
      )
      if (!retrying) return withUsage(response, usage)
      next = {
        ...request,
        prompt: { ...request.prompt, messages: appendToLastUserMessage(request.prompt.messages, feedback(verdict)) },
      }
    }
  }

  adviseStream(): AsyncIterable<ChatClientResponse> {
    throw new Error('The Structured Output Validation Advisor does not support streaming.')
  }

  async #validate(response: ChatResponse | null): Promise<Verdict> {
    const output = response?.results[0]?.output
    if (!response || !output) return invalid('Missing required json output for validation.')
    const json = extractJson(output.text)
    if (json === '') return invalid('Empty JSON output for validation.')
    let value: unknown
    try {
      value = parseJson(json)
    } catch (error) {
      return invalid(`Invalid JSON: ${(error as Error).message}`)
    }
    const validation = await this.#schema.validate(value)
    if (validation.ok) return { valid: true }
    return {
      valid: false,
      error: formatIssues(validation.issues),
      errors: validation.issues.map((issue) => formatIssues([issue])),
    }
  }
}

export class StructuredOutputValidationAdvisorBuilder {
  readonly #options: Partial<StructuredOutputValidationAdvisorOptions> = {}

  outputSchema(schema: SchemaLike): this {
    this.#options.outputSchema = schema
    return this
  }

  maxRepeatAttempts(attempts: number): this {
    this.#options.maxRepeatAttempts = attempts
    return this
  }

  advisorOrder(order: number): this {
    this.#options.advisorOrder = order
    return this
  }

  build(): StructuredOutputValidationAdvisor {
    return new StructuredOutputValidationAdvisor(this.#options as StructuredOutputValidationAdvisorOptions)
  }
}

function invalid(error: string): Verdict {
  return { valid: false, error, errors: [error] }
}

function feedback(verdict: Verdict): string {
  return verdict.valid ? '' : `Output JSON validation failed because of: ${verdict.error}`
}
