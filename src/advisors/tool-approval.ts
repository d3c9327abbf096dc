import {
  raceAbort,
  HIGHEST_PRECEDENCE,
  type Advisor,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  ROUND_KEY,
  RUN_ID_KEY,
  TOOL_ANSWERS_KEY,
  emitChainEvent,
  type ToolCall,
  type ChatResponse,
  checkpointTurn,
  contextValue,
} from '../core'
import type { ApprovalDecision, ApprovalHandler } from './approval-queue'

/** Whether a call of a tool needs the user's approval: always, never, or decided from its arguments. */
export type ApprovalPolicy = 'always' | 'never' | ((args: unknown, call: ToolCall) => boolean)

export interface ToolApprovalOptions {
  handler: ApprovalHandler
  /** Policies by tool name. */
  policies?: Record<string, ApprovalPolicy>
  /** For tools without a policy (default `never`). */
  defaultPolicy?: ApprovalPolicy
  /** Default `HIGHEST_PRECEDENCE + 500`: inside the tool loop, deeper than an observer or memory there. */
  order?: number
}

/**
 * Human in the loop: inside the tool loop it holds each tool call that needs approval until the
 * user approves, edits or rejects it. An edited call runs with the new arguments (and the history
 * shows them); a rejected call is not run, and the model is told what the user said.
 */
export class ToolApprovalAdvisor implements CallAdvisor, StreamAdvisor {
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 500

  readonly name = 'Tool Approval Advisor'
  readonly order: number
  readonly #options: ToolApprovalOptions

  constructor(options: ToolApprovalOptions) {
    if (typeof options?.handler !== 'function')
      throw new TypeError('ToolApprovalAdvisor needs a handler (e.g. an ApprovalQueue handler)')
    this.#options = options
    this.order = options.order ?? ToolApprovalAdvisor.DEFAULT_ORDER
  }

  static builder(): ToolApprovalAdvisorBuilder {
    return new ToolApprovalAdvisorBuilder()
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    return this.#review(request, await chain.nextCall(request), chain.callAdvisors)
  }

  async *adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncGenerator<ChatClientResponse> {
    let answers: Record<string, unknown> | undefined
    for await (const chunk of chain.nextStream(request)) {
      if (chunk.chatResponse?.results.some((generation) => generation.output.toolCalls.length > 0)) {
        const reviewed = await this.#review(request, chunk, chain.streamAdvisors)
        answers = reviewed.context[TOOL_ANSWERS_KEY] as Record<string, unknown> | undefined
        yield reviewed
      } else {
        // Later chunks (usage) carry the answers too: the loop reads the context of the last chunk.
        yield answers ? { ...chunk, context: { ...chunk.context, [TOOL_ANSWERS_KEY]: answers } } : chunk
      }
    }
  }

  /** Asks about each call that needs approval, one at a time, and applies the decisions. */
  async #review(
    request: ChatClientRequest,
    response: ChatClientResponse,
    listeners: readonly Advisor[],
  ): Promise<ChatClientResponse> {
    const chatResponse = response.chatResponse
    const index = chatResponse?.results.findIndex((generation) => generation.output.toolCalls.length > 0) ?? -1
    if (!chatResponse || index < 0) return response
    const round = contextValue(request.context, ROUND_KEY) ?? 0
    const runId = request.context[RUN_ID_KEY]
    const answers: Record<string, string> = {
      ...(response.context[TOOL_ANSWERS_KEY] as Record<string, string> | undefined),
    }
    const calls: ToolCall[] = []
    const message = chatResponse.results[index]!.output
    let saved = false
    for (const call of message.toolCalls) {
      const args = parse(call.arguments)
      if (!this.#needsApproval(call, args)) {
        calls.push(call)
        continue
      }
      if (!saved) {
        // Memory inside the loop keeps the message while the user decides (a reload can resume it).
        saved = true
        await checkpointTurn(listeners, message, request.context)
      }
      const report = (event: {
        phase: 'requested' | 'decided'
        decision?: ApprovalDecision['type']
        detail?: string
      }) =>
        emitChainEvent(listeners, { type: 'approval', round, toolCall: call, ...event }, response.context, this.name)
      report({ phase: 'requested' })
      const decision = await raceAbort(
        this.#options.handler({
          toolCall: call,
          arguments: args,
          ...(typeof runId === 'string' ? { runId } : {}),
          round,
          ...(request.signal ? { signal: request.signal } : {}),
        }),
        request.signal,
      )
      if (decision.type === 'edit') {
        const edited = typeof decision.arguments === 'string' ? decision.arguments : JSON.stringify(decision.arguments)
        report({ phase: 'decided', decision: 'edit', detail: edited })
        calls.push({ ...call, arguments: edited })
      } else if (decision.type === 'reject') {
        report({ phase: 'decided', decision: 'reject', ...(decision.message ? { detail: decision.message } : {}) })
        answers[call.id] = rejection(call, decision.message)
        calls.push(call)
      } else {
        report({ phase: 'decided', decision: 'approve' })
        calls.push(call)
      }
    }
    const results = chatResponse.results.with(index, {
      ...chatResponse.results[index]!,
      output: { ...chatResponse.results[index]!.output, toolCalls: calls },
    })
    const reviewed: ChatResponse = { ...chatResponse, results }
    const context =
      Object.keys(answers).length > 0 ? { ...response.context, [TOOL_ANSWERS_KEY]: answers } : response.context
    return { chatResponse: reviewed, context }
  }

  #needsApproval(call: ToolCall, args: unknown): boolean {
    const policy = this.#options.policies?.[call.name] ?? this.#options.defaultPolicy ?? 'never'
    if (policy === 'always') return true
    if (policy === 'never') return false
    return policy(args, call)
  }
}

export class ToolApprovalAdvisorBuilder {
  readonly #policies: Record<string, ApprovalPolicy> = {}
  #options: Partial<ToolApprovalOptions> = {}

  handler(handler: ApprovalHandler): this {
    this.#options.handler = handler
    return this
  }

  policy(toolName: string, policy: ApprovalPolicy): this {
    this.#policies[toolName] = policy
    return this
  }

  defaultPolicy(policy: ApprovalPolicy): this {
    this.#options.defaultPolicy = policy
    return this
  }

  order(order: number): this {
    this.#options.order = order
    return this
  }

  build(): ToolApprovalAdvisor {
    return new ToolApprovalAdvisor({ ...this.#options, policies: { ...this.#policies } } as ToolApprovalOptions)
  }
}

/** What the model is told about a call the user declined: plainly, not as an error. */
function rejection(call: ToolCall, message: string | undefined): string {
  const said = message?.trim() ? ` The user said: "${message.trim()}".` : ''
  return `The user declined this call to ${call.name}, so it was not run.${said} Do not try it again for this request; continue without it or ask the user what to do.`
}

function parse(text: string): unknown {
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
