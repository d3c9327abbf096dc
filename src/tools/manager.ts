import {
  abortError,
  throwIfAborted,
  TOOL_ANSWERS_KEY,
  toolResponseMessage,
  type AssistantMessage,
  type Message,
  type ToolResponseMessage,
  type ToolCall,
  type ToolResponse,
  type ChatOptions,
  type ChatResponse,
  type Prompt,
  type ToolCallback,
  type ToolContext,
  type ToolDefinition,
  type ToolSource,
} from '../core'
import { callTool } from './define-tool'
import { ToolCallError, ToolCallLimitExceededError } from './tool-errors'
import { type KeptLedger, TurnLedger } from './turn'

export interface ToolExecutionResult {
  /** The prompt's messages, the assistant message with the tool calls, and one tool message. */
  conversationHistory: Message[]
  /** True when every call ran a returnDirect tool successfully. */
  returnDirect: boolean
  /** The two messages this execution adds to the prompt's messages: the assistant's calls and the tool responses. */
  appended?: readonly [AssistantMessage, ToolResponseMessage]
}

/** What the manager reports while it runs the calls of one round. */
export type ToolExecutionEvent =
  | { type: 'start'; toolCall: ToolCall; at?: number; source?: ToolSource }
  | {
      type: 'end'
      toolCall: ToolCall
      result: string
      error?: string
      /** The call's own time, after its setup. */
      durationMs: number
      returnDirect: boolean
      /** `performance.now()` when the call ended (and `start`'s when it started). */
      at?: number
      /** Preparing the call (`ToolCallback.prepare`), when that took noticeable time. */
      setupMs?: number
      source?: ToolSource
      /** The last thing the tool reported about the call (`ToolContext.report`). */
      detail?: Record<string, unknown>
    }

export interface ToolExecutionInit {
  signal?: AbortSignal
  advisorContext?: Record<string, unknown>
  onToolExecution?: (event: ToolExecutionEvent) => void
}

export interface ToolCallingManager {
  resolveToolDefinitions(options: ChatOptions): ToolDefinition[]
  executeToolCalls(prompt: Prompt, response: ChatResponse, init?: ToolExecutionInit): Promise<ToolExecutionResult>
}

export interface ToolCallLimits {
  /** Calls of one tool per turn (default 40). */
  perTool?: number
  /** Calls of all tools per turn (default 150). */
  total?: number
  /** `throw` ends the loop with a `toolCallLimitExceeded` answer; `error-response` answers the extra calls with `Error:`. */
  onExceed?: 'throw' | 'error-response'
}

interface ManagerSettings {
  perTool: number
  total: number
  onExceed: 'throw' | 'error-response'
  maxIdenticalCalls: number
}

export class ToolCallingManagerBuilder {
  readonly #settings: ManagerSettings = { perTool: 40, total: 150, onExceed: 'throw', maxIdenticalCalls: 3 }

  limits(limits: ToolCallLimits): this {
    const { perTool = 40, total = 150, onExceed = 'throw' } = limits
    if (!(perTool >= 1) || !(total >= 1)) throw new RangeError('Tool call limits must be at least 1')
    Object.assign(this.#settings, { perTool, total, onExceed })
    return this
  }

  /** How often the same tool may be called with the same arguments in one turn before it is refused (default 3). */
  maxIdenticalCalls(count: number): this {
    if (!(count >= 1)) throw new RangeError('maxIdenticalCalls must be at least 1')
    this.#settings.maxIdenticalCalls = count
    return this
  }

  build(): ToolCallingManager {
    return new DefaultToolCallingManager({ ...this.#settings })
  }
}

// Interface and value share the name, as in Spring: `ToolCallingManager.builder()`.
export const ToolCallingManager = {
  builder: (): ToolCallingManagerBuilder => new ToolCallingManagerBuilder(),
}

class DefaultToolCallingManager implements ToolCallingManager {
  readonly #settings: ManagerSettings

  constructor(settings: ManagerSettings) {
    this.#settings = settings
  }

  resolveToolDefinitions(options: ChatOptions): ToolDefinition[] {
    return [...toolMap(options.tools ?? []).values()].map((tool) => tool.definition)
  }

  executeToolCalls(prompt: Prompt, response: ChatResponse, init: ToolExecutionInit = {}): Promise<ToolExecutionResult> {
    const withHistory = (round: ToolRound) => historyResult(prompt.messages, round.appended, round.returnDirect)
    try {
      const round = this.executeNow(prompt, response, init)
      return round instanceof Promise ? round.then(withHistory) : Promise.resolve(withHistory(round))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** `executeToolCalls` without the history, with no promise when every call answered at once (synchronous tools, validators ready). */
  executeNow(
    prompt: Prompt,
    response: ChatResponse,
    init: ToolExecutionInit,
    kept?: KeptLedger,
  ): ToolRound | Promise<ToolRound> {
    const generation = response.results.find((result) => result.output.toolCalls.length > 0)
    if (!generation) throw new Error('No tool call requested by the chat model')
    throwIfAborted(init.signal)

    const tools = toolMap(prompt.options.tools ?? [])
    const ledger = TurnLedger.of(prompt.messages, kept)
    const answers = presetAnswers(init.advisorContext)
    const plans = this.#plan(ledger, generation.output.toolCalls, tools, answers)
    const values = prompt.options.toolContext ?? {}
    // Every call is reported started before any of them runs.
    if (init.onToolExecution)
      for (const plan of plans) reportStart(plan, tools.get(plan.call.name), init.onToolExecution)
    const responses: Array<ToolResponse | Promise<ToolResponse>> = []
    let waiting = false
    for (const plan of plans) {
      let answered: ToolResponse | Promise<ToolResponse>
      try {
        answered = this.#execute(plan, tools.get(plan.call.name), values, init)
      } catch (error) {
        // As a rejected call among others: the other calls still run.
        answered = Promise.reject(error)
      }
      waiting ||= answered instanceof Promise
      responses.push(answered)
    }
    const finish = (answered: ToolResponse[]): ToolRound => {
      throwIfAborted(init.signal)
      // The whole message goes into history: reasoning and provider data (Anthropic's signed thinking) must go back with the calls.
      const appended = [{ ...generation.output }, toolResponseMessage(answered)] as const
      ledger.rememberFor(appended[1], prompt.messages.length + 2, kept)
      let returnDirect = true
      for (const plan of plans) returnDirect &&= plan.returnDirect
      return { appended, returnDirect }
    }
    if (!waiting) return finish(responses as ToolResponse[])
    return Promise.all(responses.map((answered) => Promise.resolve(answered))).then(finish)
  }

  /** Decides, before anything runs, which calls run and which get an `Error:` answer (unknown, limits, repeats). */
  #plan(
    ledger: TurnLedger,
    calls: readonly ToolCall[],
    tools: ReadonlyMap<string, ToolCallback>,
    answers: Readonly<Record<string, string>> | undefined,
  ): Plan[] {
    const { perTool, total, onExceed, maxIdenticalCalls } = this.#settings
    return calls.map((call) => {
      const occurrence = ledger.countCall(call)
      const made = ledger.countResponse(call)
      const answer = answers?.[call.id]
      if (answer !== undefined) return plan(call, undefined, answer)
      if (!tools.has(call.name)) {
        const available = [...tools.keys()].join(', ') || 'none'
        return plan(call, `unknown tool '${call.name}'. Available tools: ${available}.`)
      }
      if (made > perTool || ledger.total > total) {
        const breach =
          made > perTool
            ? `tool '${call.name}' was called ${made} times in this turn (limit ${perTool} per tool)`
            : `${ledger.total} tool calls were made in this turn (limit ${total} in total)`
        if (onExceed === 'throw') throw new ToolCallLimitExceededError(`Tool call limit exceeded: ${breach}.`)
        return plan(call, `tool call limit reached: ${breach}. Answer with the information you already have.`)
      }
      if (occurrence > maxIdenticalCalls) {
        return plan(
          call,
          `tool '${call.name}' was already called ${maxIdenticalCalls} time${maxIdenticalCalls === 1 ? '' : 's'} with these same arguments in this turn; use the earlier results instead of calling it again, or change the arguments.`,
        )
      }
      return plan(call, undefined)
    })
  }

  /** Runs one planned call: its response at once when the tool answered at once, else a promise of it. */
  #execute(
    plan: Plan,
    tool: ToolCallback | undefined,
    values: Record<string, unknown>,
    init: ToolExecutionInit,
  ): ToolResponse | Promise<ToolResponse> {
    if (plan.refusal !== undefined) return ended(plan, tool, init, `Error: ${plan.refusal}`, true)
    if (plan.answer !== undefined) return ended(plan, tool, init, plan.answer, false)
    if (tool!.prepare && !prepared.has(tool!)) return this.#prepareAndRun(plan, tool!, values, init)
    return run(plan, tool!, values, init)
  }

  async #prepareAndRun(
    plan: Plan,
    tool: ToolCallback,
    values: Record<string, unknown>,
    init: ToolExecutionInit,
  ): Promise<ToolResponse> {
    // A failed setup fails the call itself, which then says why; a done one is not awaited again.
    await tool.prepare!().then(
      () => prepared.add(tool),
      () => undefined,
    )
    if (init.onToolExecution) {
      const ready = performance.now()
      // A validator already compiled takes microseconds; only real setup is worth reporting.
      if (ready - plan.started >= SETUP_REPORTED_MS) plan.setupMs = ready - plan.started
      plan.started = ready
    }
    return run(plan, tool, values, init)
  }
}

/** Calls the tool; a throw or rejection becomes an `Error:` response, unless the turn was aborted. */
function run(
  plan: Plan,
  tool: ToolCallback,
  values: Record<string, unknown>,
  init: ToolExecutionInit,
): ToolResponse | Promise<ToolResponse> {
  const call = plan.call
  const context: ToolContext = {
    values,
    advisorContext: init.advisorContext ?? {},
    toolCall: call,
    ...(init.signal ? { signal: init.signal } : {}),
    report: (reported) => {
      plan.detail = reported
    },
  }
  const failed = (thrown: unknown): ToolResponse => {
    if (init.signal?.aborted) throw abortError(init.signal)
    return ended(plan, tool, init, errorResponse(call.name, thrown), true)
  }
  let answered: string | PromiseLike<string>
  try {
    answered = callTool(tool, call.arguments, context)
  } catch (thrown) {
    return failed(thrown)
  }
  if (typeof answered === 'string') return ended(plan, tool, init, answered, false)
  return Promise.resolve(answered).then((result) => ended(plan, tool, init, result, false), failed)
}

/** Tools whose `prepare` succeeded once: ready for every later call. */
const prepared = new WeakSet<ToolCallback>()

function plan(call: ToolCall, refusal: string | undefined, answer?: string): Plan {
  return { call, refusal, answer, started: 0, setupMs: undefined, detail: undefined, returnDirect: false }
}

function reportStart(plan: Plan, tool: ToolCallback | undefined, report: (event: ToolExecutionEvent) => void): void {
  // Durations exist only in the listener's events, so without one the clock is not read.
  plan.started = performance.now()
  const source = tool?.metadata.source
  const event: ToolExecutionEvent = { type: 'start', toolCall: plan.call, at: plan.started }
  if (source) event.source = source
  report(event)
}

/** The response of a call, after reporting its end; `failed`: the result is an `Error:` response. */
function ended(
  plan: Plan,
  tool: ToolCallback | undefined,
  init: ToolExecutionInit,
  result: string,
  failed: boolean,
): ToolResponse {
  const call = plan.call
  plan.returnDirect = !failed && plan.answer === undefined && tool?.metadata.returnDirect === true
  const report = init.onToolExecution
  if (report) {
    const at = performance.now()
    const durationMs = at - plan.started
    const returnDirect = plan.returnDirect
    const event: ToolExecutionEvent & { type: 'end' } = {
      type: 'end',
      toolCall: call,
      result,
      durationMs,
      returnDirect,
      at,
    }
    if (failed) event.error = result
    if (plan.setupMs !== undefined) event.setupMs = plan.setupMs
    const source = tool?.metadata.source
    if (source) event.source = source
    if (plan.detail) event.detail = plan.detail
    report(event)
  }
  return { id: call.id, name: call.name, responseData: result }
}

/** What one round of tool calls adds to the conversation, and whether its outputs are the answer. */
export interface ToolRound {
  appended: readonly [AssistantMessage, ToolResponseMessage]
  returnDirect: boolean
  /** Only from a manager of the app's own: the whole history, when it does not say what it `appended`. */
  conversationHistory?: Message[]
}

/**
 * `manager.executeToolCalls(…)` for the tool loop, which keeps the history itself: with the built-in
 * manager no history copy and no promise when every call answered at once.
 */
export function executeToolCallsNow(
  manager: ToolCallingManager,
  prompt: Prompt,
  response: ChatResponse,
  init: ToolExecutionInit,
  kept: KeptLedger,
): ToolRound | ToolExecutionResult | Promise<ToolRound | ToolExecutionResult> {
  return manager instanceof DefaultToolCallingManager
    ? manager.executeNow(prompt, response, init, kept)
    : manager.executeToolCalls(prompt, response, init)
}

const SETUP_REPORTED_MS = 0.5

interface Plan {
  call: ToolCall
  /** Set when the call must not run; the text says why. */
  refusal: string | undefined
  /** Set when an advisor already answered the call (e.g. the user declined it). */
  answer: string | undefined
  /** `performance.now()` when the call started (after its setup), when a listener is told. */
  started: number
  setupMs: number | undefined
  /** The last thing the tool reported about the call (`ToolContext.report`). */
  detail: Record<string, unknown> | undefined
  returnDirect: boolean
}

function presetAnswers(context: Record<string, unknown> | undefined): Readonly<Record<string, string>> | undefined {
  const answers = context?.[TOOL_ANSWERS_KEY]
  return answers !== null && typeof answers === 'object' ? (answers as Record<string, string>) : undefined
}

/** The history is built on first read: the tool loop appends `appended` to its own history instead. */
function historyResult(
  messages: readonly Message[],
  appended: readonly [AssistantMessage, ToolResponseMessage],
  returnDirect: boolean,
): ToolExecutionResult {
  let history: Message[] | undefined
  return {
    get conversationHistory() {
      return (history ??= [...messages, ...appended])
    },
    returnDirect,
    appended,
  }
}

function errorResponse(toolName: string, thrown: unknown): string {
  if (thrown instanceof ToolCallError) return `Error: ${thrown.message}`
  const message = thrown instanceof Error ? thrown.message : String(thrown)
  return `Error: tool '${toolName}' failed: ${message}`
}

// The same tools array comes back every round, so its name index is built once.
const toolMaps = new WeakMap<readonly ToolCallback[], ReadonlyMap<string, ToolCallback>>()

// A client builds a new tools array per call with the same tools in it: the last index serves it too.
let lastTools: readonly ToolCallback[] = []
let lastMap: ReadonlyMap<string, ToolCallback> = new Map()

function toolMap(tools: readonly ToolCallback[]): ReadonlyMap<string, ToolCallback> {
  if (sameTools(tools, lastTools)) return lastMap
  let map = toolMaps.get(tools)
  if (!map) {
    const byName = new Map<string, ToolCallback>()
    for (const tool of tools) {
      const name = tool.definition.name
      if (byName.has(name)) throw new Error(`Two tools are named '${name}'; tool names must be unique in one request`)
      byName.set(name, tool)
    }
    toolMaps.set(tools, (map = byName))
  }
  lastTools = tools
  lastMap = map
  return map
}

function sameTools(tools: readonly ToolCallback[], other: readonly ToolCallback[]): boolean {
  if (tools === other) return true
  if (tools.length !== other.length) return false
  for (let i = 0; i < tools.length; i++) if (tools[i] !== other[i]) return false
  return true
}
