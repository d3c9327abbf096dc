import {
  setOption,
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
  isAbortError,
  thrownMessage,
  type ToolCall,
  type ChatResponse,
  checkpointTurn,
  contextValue,
  streamStage,
  stoppedShort,
  ChatResponseAggregator,
  type AssistantMessage,
  type ToolCallback,
  AGENT_CALL_KEY,
} from '../core'
import { argumentsProblem } from '../tools'
import {
  queueOfHandler,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalQueue,
  type ApprovalRequest,
} from './approval-queue'

/**
 * The key of an assistant message's metadata where a ToolApprovalAdvisor marks its calls that
 * needed approval (`requested` while asked, then `approved`, `edited` or `rejected`, by call id):
 * kept in memory with the message, so a chat restored after a reload shows them again.
 */
export const APPROVALS_METADATA = 'approvals'

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
const handlers = new WeakMap<ToolApprovalAdvisor, ApprovalHandler>()

/** The ApprovalQueue a ToolApprovalAdvisor asks, when its handler is a queue's. */
export function approvalQueueOf(advisor: ToolApprovalAdvisor): ApprovalQueue | undefined {
  const handler = handlers.get(advisor)
  return handler && queueOfHandler(handler)
}

export class ToolApprovalAdvisor implements CallAdvisor, StreamAdvisor {
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 500

  readonly name = 'Tool Approval Advisor'
  readonly order: number
  readonly #options: ToolApprovalOptions
  // A Map, so a tool named `hasOwnProperty` or `constructor` finds no policy on Object.prototype.
  readonly #policies: ReadonlyMap<string, ApprovalPolicy>

  constructor(options: ToolApprovalOptions) {
    if (typeof options?.handler !== 'function')
      throw new TypeError('ToolApprovalAdvisor needs a handler (e.g. an ApprovalQueue handler)')
    this.#options = options
    handlers.set(this, options.handler)
    this.#policies = new Map(Object.entries(options.policies ?? {}))
    for (const [toolName, policy] of this.#policies) checkPolicy(policy, `policy of tool '${toolName}'`)
    if (options.defaultPolicy !== undefined) checkPolicy(options.defaultPolicy, 'defaultPolicy')
    this.order = options.order ?? ToolApprovalAdvisor.DEFAULT_ORDER
  }

  static builder(): ToolApprovalAdvisorBuilder {
    return new ToolApprovalAdvisorBuilder()
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    return this.#review(request, await chain.nextCall(request), chain.callAdvisors)
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    let answers: unknown
    // The round so far: a checkpoint keeps the text that streamed before the calls, not only the calls.
    const round = new ChatResponseAggregator()
    return streamStage({
      open: () => chain.nextStream(request),
      chunk: (chunk: ChatClientResponse) => {
        if (chunk.chatResponse) round.add(chunk.chatResponse)
        if (chunk.chatResponse?.results.some((generation) => generation.output.toolCalls.length > 0)) {
          return this.#review(request, chunk, chain.streamAdvisors, round).then((reviewed) => {
            answers = reviewed.context[TOOL_ANSWERS_KEY]
            return reviewed
          })
        }
        // Later chunks (usage) carry the answers too: the loop reads the context of the last chunk.
        return answers ? { ...chunk, context: { ...chunk.context, [TOOL_ANSWERS_KEY]: answers } } : chunk
      },
    })
  }

  /** Asks about each call that needs approval, one at a time, and applies the decisions. */
  async #review(
    request: ChatClientRequest,
    response: ChatClientResponse,
    listeners: readonly Advisor[],
    streamed?: ChatResponseAggregator,
  ): Promise<ChatClientResponse> {
    const chatResponse = response.chatResponse
    const index = chatResponse?.results.findIndex((generation) => generation.output.toolCalls.length > 0) ?? -1
    // An answer cut short holds unfinished calls: the tool loop refuses them, so nobody is asked.
    if (!chatResponse || index < 0 || stoppedShort(chatResponse.results[index]!.metadata.finishReason)) return response
    const round = contextValue(request.context, ROUND_KEY) ?? 0
    const runId = request.context[RUN_ID_KEY]
    // In a sub-agent: the agent tools on the way down to it, shown with each call it asks about.
    const agentPath = contextValue(request.context, AGENT_CALL_KEY)?.path
    const via = Array.isArray(agentPath) ? agentPath.filter((step) => typeof step === 'string') : undefined
    // This round's answers only: a model that reuses a call id must not inherit an earlier rejection.
    const answers: Record<string, string> = Object.create(null) as Record<string, string>
    const calls: ToolCall[] = []
    const message = chatResponse.results[index]!.output
    const tools = request.prompt.options.tools ?? []
    // The calls to ask about, marked `requested` on the message before anyone is asked.
    const marks: Record<string, string> = {}
    const asked = new Map<ToolCall, unknown>()
    for (const call of message.toolCalls) {
      const tool = tools.find((candidate) => candidate.definition.name === call.name)
      const policy =
        this.#policies.get(call.name) ?? toolPolicy(tool, request, call) ?? this.#options.defaultPolicy ?? 'never'
      // A call that can only fail is answered as the tool round would answer it, never shown to the user.
      const problem = policy === 'never' ? undefined : await argumentsProblem(tool, call.name, call.arguments)
      if (problem) answers[call.id] = problem
      const args = parse(call.arguments)
      if (!problem && (await needsApproval(policy, call, args))) {
        marks[call.id] = 'requested'
        asked.set(call, args)
      }
    }
    const marked = (whole: AssistantMessage): AssistantMessage => ({
      ...whole,
      metadata: { ...whole.metadata, [APPROVALS_METADATA]: { ...marks } },
    })
    if (asked.size > 0)
      // Memory inside the loop keeps the round (its text, its calls, what is asked) while the user
      // decides: a reload shows it as it was, and can resume it.
      await checkpointTurn(listeners, marked(streamed?.result().results[index]?.output ?? message), request.context)
    for (const call of message.toolCalls) {
      if (!asked.has(call)) {
        calls.push(call)
        continue
      }
      const args = asked.get(call)
      const report = (event: {
        phase: 'requested' | 'decided'
        decision?: ApprovalDecision['type']
        detail?: string
      }) =>
        emitChainEvent(listeners, { type: 'approval', round, toolCall: call, ...event }, response.context, this.name)
      report({ phase: 'requested' })
      const decision = readDecision(
        await this.#ask({
          toolCall: call,
          arguments: args,
          ...(typeof runId === 'string' ? { runId } : {}),
          round,
          ...(via?.length ? { path: [...via, call.name] } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
        }),
      )
      marks[call.id] = decision.type === 'approve' ? 'approved' : decision.type === 'edit' ? 'edited' : 'rejected'
      if (decision.type === 'edit') {
        report({ phase: 'decided', decision: 'edit', detail: decision.arguments })
        calls.push({ ...call, arguments: decision.arguments })
      } else if (decision.type === 'reject') {
        report({ phase: 'decided', decision: 'reject', ...(decision.message ? { detail: decision.message } : {}) })
        answers[call.id] = declinedCallText(call, decision.message)
        calls.push(call)
      } else if (decision.type === 'invalid') {
        report({ phase: 'decided', decision: 'reject', detail: decision.problem })
        answers[call.id] = notApproved(call, decision.problem)
        calls.push(call)
      } else {
        report({ phase: 'decided', decision: 'approve' })
        calls.push(call)
      }
    }
    const results = chatResponse.results.with(index, {
      ...chatResponse.results[index]!,
      output: { ...(asked.size > 0 ? marked(message) : message), toolCalls: calls },
    })
    const reviewed: ChatResponse = { ...chatResponse, results }
    return { chatResponse: reviewed, context: { ...response.context, [TOOL_ANSWERS_KEY]: answers } }
  }

  /** The handler's answer; a handler that fails (other than by abort) is an answer too: not approved. */
  async #ask(approval: ApprovalRequest): Promise<unknown> {
    try {
      return await raceAbort(this.#options.handler(approval), approval.signal)
    } catch (error) {
      if (isAbortError(error) || approval.signal?.aborted) throw error
      return { type: 'invalid', problem: `the approval handler failed: ${thrownMessage(error)}` }
    }
  }
}

export class ToolApprovalAdvisorBuilder {
  readonly #policies: Record<string, ApprovalPolicy> = Object.create(null) as Record<string, ApprovalPolicy>
  readonly #options: Partial<ToolApprovalOptions> = {}

  handler(handler: ApprovalHandler): this {
    return setOption(this, this.#options, 'handler', handler)
  }

  policy(toolName: string, policy: ApprovalPolicy): this {
    this.#policies[toolName] = policy
    return this
  }

  defaultPolicy(policy: ApprovalPolicy): this {
    return setOption(this, this.#options, 'defaultPolicy', policy)
  }

  order(order: number): this {
    return setOption(this, this.#options, 'order', order)
  }

  build(): ToolApprovalAdvisor {
    return new ToolApprovalAdvisor({ ...this.#options, policies: this.#policies } as ToolApprovalOptions)
  }
}

type ReadDecision =
  | { type: 'approve' }
  | { type: 'edit'; arguments: string }
  | { type: 'reject'; message?: string }
  | { type: 'invalid'; problem: string }

/** Only an explicit approve, or an edit with encodable arguments, lets a call run; anything else denies it. */
function readDecision(decision: unknown): ReadDecision {
  if (decision === null || typeof decision !== 'object') return { type: 'invalid', problem: invalid(decision) }
  // Own fields only: a decision that inherits `type: 'approve'` from its prototype is no approval.
  const own = (field: string): unknown =>
    Object.hasOwn(decision, field) ? (decision as Record<string, unknown>)[field] : undefined
  const [type, message, edited, problem] = ['type', 'message', 'arguments', 'problem'].map(own)
  if (type === 'approve') return { type: 'approve' }
  if (type === 'reject') return typeof message === 'string' ? { type: 'reject', message } : { type: 'reject' }
  if (type === 'invalid' && typeof problem === 'string') return { type: 'invalid', problem }
  if (type === 'edit') {
    if (typeof edited === 'string') return { type: 'edit', arguments: edited }
    if (edited !== null && typeof edited === 'object' && !Array.isArray(edited)) {
      try {
        return { type: 'edit', arguments: JSON.stringify(edited) }
      } catch (error) {
        return { type: 'invalid', problem: `the edited arguments cannot be encoded as JSON (${thrownMessage(error)})` }
      }
    }
    return { type: 'invalid', problem: 'the edited arguments are neither an object nor JSON text' }
  }
  return { type: 'invalid', problem: invalid(decision) }
}

function invalid(decision: unknown): string {
  let shown: string
  try {
    shown = JSON.stringify(decision) ?? String(decision)
  } catch {
    shown = 'an unreadable value'
  }
  return `the approval handler answered ${shown}, which is not a decision (expected approve, edit or reject)`
}

function checkPolicy(policy: unknown, what: string): void {
  if (policy !== 'always' && policy !== 'never' && typeof policy !== 'function') {
    throw new TypeError(`${what} must be 'always', 'never' or a function of the arguments, but was ${String(policy)}`)
  }
}

/** What the model is told about a call that was not approved because no valid decision came. */
function notApproved(call: ToolCall, problem: string): string {
  return `The call to ${call.name} needed the user's approval and was not approved (${problem}), so it was not run. Do not try it again for this request; continue without it or ask the user what to do.`
}

/** What the model is told about a call the user declined: plainly, not as an error (a chat UI shows the user's words only). */
export function declinedCallText(call: Pick<ToolCall, 'name'>, message: string | undefined): string {
  const said = message?.trim() ? ` The user said: "${message.trim()}".` : ''
  return `The user declined this call to ${call.name}, so it was not run.${said} Do not try it again for this request; continue without it or ask the user what to do.`
}

/** Fails closed: a policy that throws or rejects (on arguments it did not expect) asks the user. */
async function needsApproval(policy: ApprovalPolicy | ToolPolicy, call: ToolCall, args: unknown): Promise<boolean> {
  if (policy === 'always') return true
  if (policy === 'never') return false
  try {
    return (await policy(args, call)) !== false
  } catch {
    return true
  }
}

type ToolPolicy = (args: unknown, call: ToolCall) => Promise<boolean> | boolean

/** The policy a tool declares with `needsApproval`, asked with the context the call would run with. */
function toolPolicy(
  tool: ToolCallback | undefined,
  request: ChatClientRequest,
  call: ToolCall,
): ApprovalPolicy | ToolPolicy | undefined {
  const rule = tool?.metadata.needsApproval
  if (rule === undefined) return undefined
  if (typeof rule !== 'function') return rule ? 'always' : 'never'
  const values = request.prompt.options.toolContext ?? {}
  return (args) =>
    rule(args, {
      values: Object.freeze({ ...values }),
      advisorContext: request.context,
      toolCall: call,
      ...(request.signal ? { signal: request.signal } : {}),
    })
}

function parse(text: string): unknown {
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
