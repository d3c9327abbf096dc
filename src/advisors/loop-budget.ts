import {
  setOption,
  HIGHEST_PRECEDENCE,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  BUDGET_KEY,
  ROUND_KEY,
  emitChainEvent,
  streamOf,
  streamStage,
  assistantMessage,
  type ChatResponse,
  contextValue,
  finiteNumber,
  wholeNumber,
} from '../core'

export type BudgetReason = 'rounds' | 'tokens' | 'time'

export interface LoopBudgetOptions {
  /** Model calls in one call; the last one is made without tools. */
  maxRounds?: number
  /** Total tokens (prompt + completion, summed over rounds) before the last call. */
  maxTotalTokens?: number
  /** Wall-clock milliseconds from the first round before the last call. */
  maxDurationMs?: number
  /** `answer` (default): one last model call without tools; `stop`: end at once with a note. */
  onExceeded?: 'answer' | 'stop'
  order?: number
  /** The instruction of the last call. */
  finalInstruction?: (reason: BudgetReason) => string
}

interface BudgetState {
  startedAt: number
  tokens: number
}

const DEFAULT_INSTRUCTION = (reason: BudgetReason) =>
  `The ${reason === 'time' ? 'time' : reason === 'tokens' ? 'token' : 'round'} budget for this request is used up. ` +
  'Do not call any tools. Answer the request now, as well as you can with the information you already have, and say briefly what is missing.'

/**
 * Budgets for the tool loop that end in an answer, not an exception: inside the loop it counts
 * rounds, tokens and time, and when a budget is reached it makes the next round the last one,
 * without tools and with an instruction to answer with what the model has.
 */
export class LoopBudgetAdvisor implements CallAdvisor, StreamAdvisor {
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 310

  readonly name = 'Loop Budget Advisor'
  readonly order: number
  readonly #options: LoopBudgetOptions

  constructor(options: LoopBudgetOptions) {
    for (const key of ['maxRounds', 'maxTotalTokens', 'maxDurationMs'] as const) {
      const value = options[key]
      if (value === undefined) continue
      if (!(value > 0)) throw new RangeError(`${key} must be a positive number, got ${value}`)
      if (key === 'maxDurationMs') finiteNumber(key, value, 0)
      else wholeNumber(key, value, 1)
    }
    this.#options = options
    this.order = options.order ?? LoopBudgetAdvisor.DEFAULT_ORDER
  }

  static builder(): LoopBudgetAdvisorBuilder {
    return new LoopBudgetAdvisorBuilder()
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    const state = stateOf(request)
    const reason = this.#exceeded(state, request)
    if (!reason) {
      const response = await chain.nextCall(withState(request, state))
      state.tokens += response.chatResponse?.metadata.usage?.totalTokens ?? 0
      return { ...response, context: { ...response.context, [BUDGET_KEY]: state } }
    }
    this.#report(chain.callAdvisors, request, reason, state)
    if (this.#options.onExceeded === 'stop') return this.#stopped(request, reason)
    const response = await chain.nextCall(this.#lastCall(request, state, reason))
    return { ...response, chatResponse: response.chatResponse && marked(response.chatResponse, reason) }
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    const state = stateOf(request)
    const reason = this.#exceeded(state, request)
    if (!reason) {
      const contexts = new WeakMap<Record<string, unknown>, Record<string, unknown>>()
      return streamStage({
        open: () => chain.nextStream(withState(request, state)),
        chunk: (chunk: ChatClientResponse) => {
          state.tokens += chunk.chatResponse?.metadata.usage?.totalTokens ?? 0
          let context = contexts.get(chunk.context)
          if (!context) contexts.set(chunk.context, (context = { ...chunk.context, [BUDGET_KEY]: state }))
          return { ...chunk, context }
        },
      })
    }
    this.#report(chain.streamAdvisors, request, reason, state)
    if (this.#options.onExceeded === 'stop') return streamOf(this.#stopped(request, reason))
    return streamStage({
      open: () => chain.nextStream(this.#lastCall(request, state, reason)),
      chunk: (chunk: ChatClientResponse) =>
        chunk.chatResponse ? { ...chunk, chatResponse: marked(chunk.chatResponse, reason) } : chunk,
    })
  }

  #exceeded(state: BudgetState, request: ChatClientRequest): BudgetReason | undefined {
    const { maxRounds, maxTotalTokens, maxDurationMs } = this.#options
    const round = contextValue(request.context, ROUND_KEY) ?? 1
    if (maxTotalTokens !== undefined && state.tokens >= maxTotalTokens) return 'tokens'
    if (maxDurationMs !== undefined && Date.now() - state.startedAt >= maxDurationMs) return 'time'
    if (maxRounds !== undefined && round >= maxRounds) return 'rounds'
    return undefined
  }

  #lastCall(request: ChatClientRequest, state: BudgetState, reason: BudgetReason): ChatClientRequest {
    const { tools: _tools, toolChoice: _toolChoice, ...options } = request.prompt.options
    const instruction = (this.#options.finalInstruction ?? DEFAULT_INSTRUCTION)(reason)
    const messages = [
      ...request.prompt.messages,
      { role: 'user' as const, text: instruction, metadata: { budget: reason } },
    ]
    return { ...withState(request, state), prompt: { messages, options } }
  }

  #stopped(request: ChatClientRequest, reason: BudgetReason): ChatClientResponse {
    const text = `Stopped: the ${reason} budget of this request is used up.`
    return {
      context: request.context,
      chatResponse: {
        results: [
          { output: assistantMessage(text), metadata: { finishReason: 'budgetExceeded', budgetExceeded: reason } },
        ],
        metadata: { budgetExceeded: reason },
      },
    }
  }

  #report(
    listeners: readonly { name: string; order: number }[],
    request: ChatClientRequest,
    reason: BudgetReason,
    state: BudgetState,
  ): void {
    const data = {
      reason,
      tokens: state.tokens,
      elapsedMs: Date.now() - state.startedAt,
      onExceeded: this.#options.onExceeded ?? 'answer',
    }
    emitChainEvent(
      listeners,
      { type: 'note', advisor: this.name, message: `budget reached: ${reason}`, data },
      request.context,
      this.name,
    )
  }
}

export class LoopBudgetAdvisorBuilder {
  readonly #options: LoopBudgetOptions = {}

  maxRounds(rounds: number): this {
    return setOption(this, this.#options, 'maxRounds', rounds)
  }

  maxTotalTokens(tokens: number): this {
    return setOption(this, this.#options, 'maxTotalTokens', tokens)
  }

  maxDurationMs(ms: number): this {
    return setOption(this, this.#options, 'maxDurationMs', ms)
  }

  onExceeded(behaviour: 'answer' | 'stop'): this {
    return setOption(this, this.#options, 'onExceeded', behaviour)
  }

  order(order: number): this {
    return setOption(this, this.#options, 'order', order)
  }

  finalInstruction(instruction: (reason: BudgetReason) => string): this {
    return setOption(this, this.#options, 'finalInstruction', instruction)
  }

  build(): LoopBudgetAdvisor {
    return new LoopBudgetAdvisor({ ...this.#options })
  }
}

function stateOf(request: ChatClientRequest): BudgetState {
  const carried = request.context[BUDGET_KEY] as BudgetState | undefined
  return carried ? { ...carried } : { startedAt: Date.now(), tokens: 0 }
}

function withState(request: ChatClientRequest, state: BudgetState): ChatClientRequest {
  return { ...request, context: { ...request.context, [BUDGET_KEY]: state } }
}

/** The answer of the last call: tool calls dropped (the loop ends here) and the reason recorded. */
function marked(response: ChatResponse, reason: BudgetReason): ChatResponse {
  return {
    results: response.results.map((generation) => ({
      output: { ...generation.output, toolCalls: [] },
      metadata: generation.metadata.finishReason
        ? { ...generation.metadata, budgetExceeded: reason }
        : generation.metadata,
    })),
    metadata: { ...response.metadata, budgetExceeded: reason },
  }
}
