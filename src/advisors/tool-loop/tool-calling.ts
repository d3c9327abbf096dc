import {
  HIGHEST_PRECEDENCE,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  type Message,
  hasToolCalls,
  type ChatResponse,
  stoppedShort,
  advisorOrder,
  wholeNumber,
} from '../../core'
import { ToolCallError, ToolCallingManager, type ToolExecutionResult } from '../../tools'
import { TOOL_ADVISOR, type ToolAdvisor } from '../markers'
import { ToolLoop, type RoundEnd } from './tool-loop'
import { toolLoopStream, type ToolLoopSteps } from './tool-loop-stream'

export type ToolExecutionEligibilityChecker = (response: ChatResponse | null) => boolean

export interface ToolCallingAdvisorOptions {
  toolCallingManager?: ToolCallingManager
  /** Decides whether a response's tool calls run (default: `hasToolCalls`). */
  toolExecutionEligibilityChecker?: ToolExecutionEligibilityChecker
  advisorOrder?: number
  /** With history off a round sends only the first system message and the latest message (default on). */
  conversationHistoryEnabled?: boolean
  /** Rounds that all end in tool calls before the loop stops with `toolCallLimitExceeded` (default 20). */
  maxIterations?: number
}

/**
 * The tool loop as a recursive advisor: each round re-runs the rest of the chain with
 * `chain.copy(this)`, runs the tools the model asked for, and goes again until the model answers.
 * Subclasses change the loop through the protected hooks.
 */
export class ToolCallingAdvisor implements CallAdvisor, StreamAdvisor, ToolAdvisor {
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 300

  readonly [TOOL_ADVISOR] = true as const
  readonly name: string = 'Tool Calling Advisor'
  readonly order: number
  protected readonly toolCallingManager: ToolCallingManager
  protected readonly toolExecutionEligibilityChecker: ToolExecutionEligibilityChecker
  protected readonly conversationHistoryEnabled: boolean
  protected readonly maxIterations: number

  constructor(options: ToolCallingAdvisorOptions = {}) {
    this.order = advisorOrder(options.advisorOrder ?? ToolCallingAdvisor.DEFAULT_ORDER)
    this.maxIterations = wholeNumber('maxIterations', options.maxIterations ?? 20, 1)
    this.toolCallingManager = options.toolCallingManager ?? ToolCallingManager.builder().build()
    this.toolExecutionEligibilityChecker = options.toolExecutionEligibilityChecker ?? hasToolCalls
    this.conversationHistoryEnabled = options.conversationHistoryEnabled ?? true
  }

  static builder(): ToolCallingAdvisorBuilder<ToolCallingAdvisor> {
    return new ToolCallingAdvisorBuilder((options) => new ToolCallingAdvisor(options))
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    const initialized = await this.doInitializeLoop(request, chain)
    const loop = new ToolLoop(initialized, this, chain.callAdvisors, this.conversationHistoryEnabled, 'call')
    let response: ChatClientResponse
    try {
      const rest = chain.copy(this)
      for (;;) {
        const roundRequest = loop.sending(await this.doBeforeCall(loop.nextRequest(), chain))
        response = await this.doAfterCall(await rest.nextCall(roundRequest), chain)
        loop.received(response)
        const ended = await this.#endOfRound(loop, roundRequest, response)
        if (ended.done) {
          response = ended.response
          break
        }
        loop.advance(await this.doGetNextInstructionsForToolCall(roundRequest, response, ended.result))
      }
    } catch (error) {
      loop.failed(error)
      throw error
    }
    return this.doFinalizeLoop(response, chain)
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    const steps: ToolLoopSteps = {
      start: async () => {
        const initialized = await this.doInitializeLoopStream(request, chain)
        return new ToolLoop(initialized, this, chain.streamAdvisors, this.conversationHistoryEnabled, 'stream')
      },
      beforeRound: (roundRequest) => this.doBeforeStream(roundRequest, chain),
      openRound: (roundRequest) => chain.copy(this).nextStream(roundRequest),
      afterRound: (response) => this.doAfterStream(response, chain),
      endOfRound: (loop, roundRequest, response) => this.#endOfRound(loop, roundRequest, response),
      nextInstructions: (roundRequest, response, result) =>
        this.doGetNextInstructionsForToolCallStream(roundRequest, response, result),
    }
    return this.doFinalizeLoopStream(toolLoopStream(steps), chain)
  }

  /** Runs the round's tools when the checker says so, or ends the loop with the final response. */
  #endOfRound(loop: ToolLoop, request: ChatClientRequest, response: ChatClientResponse): Promise<RoundEnd> {
    const rounds = loop.round
    if (!this.toolExecutionEligibilityChecker(response.chatResponse))
      return Promise.resolve(loop.ended('answer', loop.withTotalUsage(response), false))
    // The calls of an answer cut short are unfinished, whatever their arguments look like: none runs (as Anthropic advises).
    const cut = response.chatResponse?.results.find((result) => result.output.toolCalls.length > 0)?.metadata
      .finishReason
    if (stoppedShort(cut))
      return Promise.reject(
        new ToolCallError(
          `The answer was cut short (finish reason '${cut}') in the middle of its tool calls, so none was run. ${/length|window/.test(cut!) ? 'Raise maxTokens so the calls fit.' : 'Try again.'}`,
        ),
      )
    if (rounds >= this.maxIterations) {
      const message = `Tool calling stopped after ${rounds} rounds (maxIterations ${this.maxIterations}) while the model was still asking for tools.`
      return Promise.resolve(loop.ended('toolCallLimitExceeded', loop.limitResponse(response, message)))
    }
    return loop.executeTools(this.toolCallingManager, request, response)
  }

  /** Once, before the first round. */
  protected async doInitializeLoop(request: ChatClientRequest, _chain: CallAdvisorChain): Promise<ChatClientRequest> {
    return request
  }

  /** Before each round; the returned request is what the round sends. */
  protected async doBeforeCall(request: ChatClientRequest, _chain: CallAdvisorChain): Promise<ChatClientRequest> {
    return request
  }

  /** After each round's model response, before the loop decides whether to go on. */
  protected async doAfterCall(response: ChatClientResponse, _chain: CallAdvisorChain): Promise<ChatClientResponse> {
    return response
  }

  /** Once, after the loop ends. */
  protected async doFinalizeLoop(response: ChatClientResponse, _chain: CallAdvisorChain): Promise<ChatClientResponse> {
    return response
  }

  /** The messages the next round sends: the whole history, or with history off `[first system, last message]`. */
  protected async doGetNextInstructionsForToolCall(
    _request: ChatClientRequest,
    _response: ChatClientResponse,
    result: ToolExecutionResult,
  ): Promise<Message[]> {
    return this.nextInstructions(result)
  }

  protected async doInitializeLoopStream(
    request: ChatClientRequest,
    _chain: StreamAdvisorChain,
  ): Promise<ChatClientRequest> {
    return request
  }

  protected async doBeforeStream(request: ChatClientRequest, _chain: StreamAdvisorChain): Promise<ChatClientRequest> {
    return request
  }

  /** After each round, on the round's chunks aggregated into one response. */
  protected async doAfterStream(response: ChatClientResponse, _chain: StreamAdvisorChain): Promise<ChatClientResponse> {
    return response
  }

  /** Wraps the whole output stream. */
  protected doFinalizeLoopStream(
    stream: AsyncIterable<ChatClientResponse>,
    _chain: StreamAdvisorChain,
  ): AsyncIterable<ChatClientResponse> {
    return stream
  }

  protected async doGetNextInstructionsForToolCallStream(
    _request: ChatClientRequest,
    _response: ChatClientResponse,
    result: ToolExecutionResult,
  ): Promise<Message[]> {
    return this.nextInstructions(result)
  }

  protected nextInstructions(result: ToolExecutionResult): Message[] {
    const history = result.conversationHistory
    if (this.conversationHistoryEnabled) return history
    const system = history.find((message) => message.role === 'system')
    const last = history.at(-1)!
    return system ? [system, last] : [last]
  }
}

/**
 * Builds a ToolCallingAdvisor or a subclass. A subclass builder extends this class, passes a
 * factory to `super`, and adds its own setters returning `this`, so chains keep its type.
 */
export class ToolCallingAdvisorBuilder<A extends ToolCallingAdvisor = ToolCallingAdvisor> {
  protected readonly settings: ToolCallingAdvisorOptions = {}

  constructor(protected readonly factory: (options: ToolCallingAdvisorOptions) => A) {}

  toolCallingManager(manager: ToolCallingManager): this {
    this.settings.toolCallingManager = manager
    return this
  }

  toolExecutionEligibilityChecker(checker: ToolExecutionEligibilityChecker): this {
    this.settings.toolExecutionEligibilityChecker = checker
    return this
  }

  advisorOrder(order: number): this {
    this.settings.advisorOrder = order
    return this
  }

  conversationHistoryEnabled(enabled: boolean): this {
    this.settings.conversationHistoryEnabled = enabled
    return this
  }

  disableInternalConversationHistory(): this {
    return this.conversationHistoryEnabled(false)
  }

  maxIterations(count: number): this {
    this.settings.maxIterations = count
    return this
  }

  /** The order the built advisor will have. */
  get order(): number {
    return this.settings.advisorOrder ?? ToolCallingAdvisor.DEFAULT_ORDER
  }

  build(overrides: ToolCallingAdvisorOptions = {}): A {
    return this.factory({ ...this.settings, ...overrides })
  }
}
