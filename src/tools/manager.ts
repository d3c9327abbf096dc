import {
  abortError,
  thrownMessage,
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
  type ToolDefinition,
  type ToolSource,
  wholeNumber,
} from '../core'
import { ToolCallError, ToolCallLimitExceededError } from './tool-errors'
import { TurnLedger } from './turn'
import { encodeResult } from './tool-result'

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
  /** The user message the turn began with; by default the last user message. Limits count from it. */
  turnStart?: Message
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
    wholeNumber('perTool', perTool, 1)
    wholeNumber('total', total, 1)
    if (onExceed !== 'throw' && onExceed !== 'error-response') {
      throw new RangeError(`onExceed must be 'throw' or 'error-response', got ${String(onExceed)}`)
    }
    Object.assign(this.#settings, { perTool, total, onExceed })
    return this
  }

  /** How often the same tool may be called with the same arguments in one turn before it is refused (default 3). */
  maxIdenticalCalls(count: number): this {
    this.#settings.maxIdenticalCalls = wholeNumber('maxIdenticalCalls', count, 1)
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

  async executeToolCalls(
    prompt: Prompt,
    response: ChatResponse,
    init: ToolExecutionInit = {},
  ): Promise<ToolExecutionResult> {
    const generation = response.results.find((result) => result.output.toolCalls.length > 0)
    if (!generation) throw new Error('No tool call requested by the chat model')
    throwIfAborted(init.signal)

    const tools = toolMap(prompt.options.tools ?? [])
    const ledger = TurnLedger.of(prompt.messages, init.turnStart)
    const answers = presetAnswers(init.advisorContext)
    const { plans, breach } = this.#plan(ledger, generation.output.toolCalls, tools, answers)
    // A frozen copy per round (the context may have changed since): a tool's writes must not reach later rounds or other tools.
    const values = Object.freeze({ ...prompt.options.toolContext })
    const outcomes = await Promise.all(plans.map((plan) => this.#execute(plan, tools, values, init)))
    throwIfAborted(init.signal)
    if (breach !== undefined) {
      throw new ToolCallLimitExceededError(
        breach,
        outcomes.map((outcome) => outcome.response),
      )
    }

    const responses: ToolResponse[] = outcomes.map((outcome) => outcome.response)
    // The whole message goes into history: reasoning and provider data (Anthropic's signed thinking) must go back with the calls.
    const appended = [{ ...generation.output }, toolResponseMessage(responses)] as const
    ledger.rememberFor(appended[1], prompt.messages.length + 2)
    return historyResult(
      prompt.messages,
      appended,
      outcomes.every((outcome) => outcome.returnDirect),
    )
  }

  /** Decides, before anything runs, which calls run and which get an `Error:` answer (unknown, limits, repeats). */
  #plan(
    ledger: TurnLedger,
    calls: readonly ToolCall[],
    tools: ReadonlyMap<string, ToolCallback>,
    answers: Readonly<Record<string, unknown>> | undefined,
  ): { plans: Plan[]; breach?: string } {
    const plans: Plan[] = []
    for (const call of calls) {
      const plan = this.#planCall(ledger, call, tools, answers)
      if ('breach' in plan) return { plans, breach: plan.breach }
      plans.push(plan)
    }
    return { plans }
  }

  #planCall(
    ledger: TurnLedger,
    call: ToolCall,
    tools: ReadonlyMap<string, ToolCallback>,
    answers: Readonly<Record<string, unknown>> | undefined,
  ): Plan | { breach: string } {
    const { perTool, total, onExceed, maxIdenticalCalls } = this.#settings
    const occurrence = ledger.countCall(call)
    const made = ledger.countResponse(call)
    const answer = presetAnswer(answers, call.id)
    if (answer !== undefined) return { call, refusal: undefined, answer }
    if (!tools.has(call.name)) {
      const available = [...tools.keys()].join(', ') || 'none'
      return { call, refusal: `unknown tool '${call.name}'. Available tools: ${available}.` }
    }
    if (made > perTool || ledger.total > total) {
      const breach =
        made > perTool
          ? `tool '${call.name}' was called ${made} times in this turn (limit ${perTool} per tool)`
          : `${ledger.total} tool calls were made in this turn (limit ${total} in total)`
      // The calls before this one still run; the error carries their responses.
      if (onExceed === 'throw') return { breach: `Tool call limit exceeded: ${breach}.` }
      return { call, refusal: `tool call limit reached: ${breach}. Answer with the information you already have.` }
    }
    if (occurrence > maxIdenticalCalls) {
      return {
        call,
        refusal: `tool '${call.name}' was already called ${maxIdenticalCalls} time${maxIdenticalCalls === 1 ? '' : 's'} with these same arguments in this turn; use the earlier results instead of calling it again, or change the arguments.`,
      }
    }
    return { call, refusal: undefined }
  }

  async #execute(
    plan: Plan,
    tools: ReadonlyMap<string, ToolCallback>,
    values: Readonly<Record<string, unknown>>,
    init: ToolExecutionInit,
  ): Promise<{ response: ToolResponse; returnDirect: boolean }> {
    const { call } = plan
    const tool = tools.get(call.name)
    const report = init.onToolExecution
    // Durations exist only in the listener's events, so without one the clock is not read.
    let started = report ? performance.now() : 0
    const source = tool?.metadata.source
    report?.({ type: 'start', toolCall: call, at: started, ...(source ? { source } : {}) })
    let result: string
    let error: string | undefined
    let setupMs: number | undefined
    let detail: Record<string, unknown> | undefined
    if (plan.refusal !== undefined) {
      result = error = `Error: ${plan.refusal}`
    } else if (plan.answer !== undefined) {
      result = plan.answer
    } else {
      if (tool!.prepare) {
        // A failed setup fails the call itself, which then says why.
        await tool!.prepare().catch(() => undefined)
        if (report) {
          const ready = performance.now()
          // A validator already compiled takes microseconds; only real setup is worth reporting.
          if (ready - started >= SETUP_REPORTED_MS) setupMs = ready - started
          started = ready
        }
      }
      try {
        const returned: unknown = await tool!.call(call.arguments, {
          values,
          advisorContext: init.advisorContext ?? {},
          toolCall: call,
          ...(init.signal ? { signal: init.signal } : {}),
          report: (reported) => {
            detail = reported
          },
        })
        // A hand-written ToolCallback may return anything; the model only ever gets a string.
        result = typeof returned === 'string' ? returned : encodeResult(returned, call.name)
      } catch (thrown) {
        if (init.signal?.aborted) throw abortError(init.signal)
        result = error = errorResponse(call.name, thrown)
      }
    }
    const returnDirect = error === undefined && plan.answer === undefined && tool?.metadata.returnDirect === true
    if (report) {
      const ended = performance.now()
      report({
        type: 'end',
        toolCall: call,
        result,
        ...(error !== undefined ? { error } : {}),
        durationMs: ended - started,
        returnDirect,
        at: ended,
        ...(setupMs !== undefined ? { setupMs } : {}),
        ...(source ? { source } : {}),
        ...(detail ? { detail } : {}),
      })
    }
    return { response: { id: call.id, name: call.name, responseData: result }, returnDirect }
  }
}

const SETUP_REPORTED_MS = 0.5

interface Plan {
  call: ToolCall
  /** Set when the call must not run; the text says why. */
  refusal: string | undefined
  /** Set when an advisor already answered the call (e.g. the user declined it). */
  answer?: string
}

function presetAnswers(context: Record<string, unknown> | undefined): Readonly<Record<string, unknown>> | undefined {
  const answers = context?.[TOOL_ANSWERS_KEY]
  return answers !== null && typeof answers === 'object' ? (answers as Record<string, unknown>) : undefined
}

/** An advisor's answer to this call: an own string property only, so an id like `constructor` finds nothing. */
function presetAnswer(answers: Readonly<Record<string, unknown>> | undefined, id: string): string | undefined {
  if (!answers || !Object.hasOwn(answers, id)) return undefined
  const answer = answers[id]
  return typeof answer === 'string' ? answer : undefined
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
  return `Error: tool '${toolName}' failed: ${thrownMessage(thrown)}`
}

// The same tools array comes back every round, so its name index is built once.
const toolMaps = new WeakMap<readonly ToolCallback[], ReadonlyMap<string, ToolCallback>>()

function toolMap(tools: readonly ToolCallback[]): ReadonlyMap<string, ToolCallback> {
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
  return map
}
