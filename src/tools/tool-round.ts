import {
  abortError,
  runSignal,
  type AnyAdvisor,
  RUN_ID_KEY,
  thrownMessage,
  throwIfAborted,
  TOOL_ANSWERS_KEY,
  toolResponseMessage,
  type AssistantMessage,
  type Message,
  type ToolResponseMessage,
  type ToolCall,
  type ToolContext,
  type ToolResponse,
  type ChatResponse,
  type Prompt,
  type ToolCallback,
  now,
} from '../core'
import type { ManagerSettings, ToolExecutionEvent, ToolExecutionInit, ToolExecutionResult } from './manager'
import { ToolCallError, ToolCallLimitExceededError } from './tool-errors'
import { toolMap } from './tool-map'
import { encodeResult } from './tool-result'
import { parsedArguments, TurnLedger } from './turn'
import { callParsed } from './define-tool'

/**
 * Runs the tool calls of one round: plans them (unknown tools, limits, repeats), runs the rest, and
 * says what the round adds to the history.
 */
export async function executeToolRound(
  settings: ManagerSettings,
  prompt: Prompt,
  response: ChatResponse,
  init: ToolExecutionInit,
): Promise<ToolExecutionResult> {
  const generation = response.results.find((result) => result.output.toolCalls.length > 0)
  if (!generation) throw new Error('No tool call requested by the chat model')
  throwIfAborted(init.signal)

  const tools = toolMap(prompt.options.tools ?? [])
  const ledger = TurnLedger.of(prompt.messages, init.turnStart)
  const answers = presetAnswers(init.advisorContext)
  const { plans, breach } = plan(settings, ledger, generation.output.toolCalls, tools, answers)
  // A frozen copy per round (the context may have changed since): a tool's writes must not reach later rounds or other tools.
  const toolContext = prompt.options.toolContext
  const values = toolContext ? Object.freeze({ ...toolContext }) : NO_VALUES
  // Every call is reported started before any of them runs.
  const report = init.onToolExecution
  if (report) plans.forEach((planned) => reportStart(planned, report))
  // A call that fails is answered with `Error:`; the other calls still run.
  const answered = await Promise.all(plans.map((planned) => execute(planned, values, init)))
  throwIfAborted(init.signal)
  // The calls before the breach ran; the error carries their responses.
  if (breach !== undefined) throw new ToolCallLimitExceededError(breach, answered)
  // The whole message goes into history: reasoning and provider data (Anthropic's signed thinking) must go back with the calls.
  const appended = [{ ...generation.output }, toolResponseMessage(answered)] as const
  ledger.rememberFor(prompt.messages)
  const returnDirect = plans.every((planned) => planned.returnDirect)
  return new RoundResult(prompt.messages, appended, returnDirect)
}

/** Decides, before anything runs, which calls run and which get an `Error:` answer (unknown, limits, repeats). */
function plan(
  settings: ManagerSettings,
  ledger: TurnLedger,
  calls: readonly ToolCall[],
  tools: ReadonlyMap<string, ToolCallback>,
  answers: Readonly<Record<string, unknown>> | undefined,
): { plans: Plan[]; breach?: string } {
  const plans: Plan[] = []
  // Indexed: a for-of loop's iterator cost 1% of a warm round in V8's baseline tier (bench-peers, Node).
  for (let i = 0; i < calls.length; i++) {
    const planned = planCall(settings, ledger, calls[i]!, tools, answers)
    if ('breach' in planned) return { plans, breach: planned.breach }
    plans.push(planned)
  }
  return { plans }
}

function planCall(
  settings: ManagerSettings,
  ledger: TurnLedger,
  call: ToolCall,
  tools: ReadonlyMap<string, ToolCallback>,
  answers: Readonly<Record<string, unknown>> | undefined,
): Plan | { breach: string } {
  const { perTool, total, onExceed, maxIdenticalCalls } = settings
  // Parsed once per call, for the ledger and the tool: each call gets a value of its own (a tool may change its arguments).
  const args = parsedArguments(call.arguments)
  const occurrence = ledger.countCall(call, args)
  const made = ledger.countResponse(call)
  const answer = presetAnswer(answers, call.id)
  const tool = tools.get(call.name)
  if (answer !== undefined) return planned(call, tool, answer)
  if (!tool) {
    const available = [...tools.keys()].join(', ') || 'none'
    return planned(call, tool, `Error: unknown tool '${call.name}'. Available tools: ${available}.`)
  }
  // Approvals fail closed: a tool that needs the user's approval never runs where nothing asked for it.
  if (tool.metadata.needsApproval && !answers)
    return planned(
      call,
      tool,
      `Error: tool '${call.name}' needs the user's approval and nothing in this chain asks for it, so it was not run (add a ToolApprovalAdvisor).`,
    )
  if (made > perTool || ledger.total > total) {
    const breach =
      made > perTool
        ? `tool '${call.name}' was called ${made} times in this turn (limit ${perTool} per tool)`
        : `${ledger.total} tool calls were made in this turn (limit ${total} in total)`
    // The calls before this one still run; the error carries their responses.
    if (onExceed === 'throw') return { breach: `Tool call limit exceeded: ${breach}.` }
    return planned(
      call,
      tool,
      `Error: tool call limit reached: ${breach}. Answer with the information you already have.`,
    )
  }
  if (occurrence > maxIdenticalCalls) {
    return planned(
      call,
      tool,
      `Error: tool '${call.name}' was already called ${maxIdenticalCalls} time${maxIdenticalCalls === 1 ? '' : 's'} with these same arguments in this turn; use the earlier results instead of calling it again, or change the arguments.`,
    )
  }
  return planned(call, tool, undefined, args)
}

/** Runs one planned call, or answers it as planned (a refusal, an advisor's answer). */
function execute(
  plan: Plan,
  values: Readonly<Record<string, unknown>>,
  init: ToolExecutionInit,
): Promise<ToolResponse> {
  // An `Error:` answer (a refusal, arguments an approval found invalid) is a failed call, in the trace too.
  if (plan.answer !== undefined)
    return Promise.resolve(ended(plan, init, plan.answer, plan.answer.startsWith('Error:')))
  const tool = plan.tool!
  if (tool.prepare && !prepared.has(tool)) return prepare(plan, tool, init).then(() => run(plan, tool, values, init))
  return run(plan, tool, values, init)
}

/** Sets a tool up before its first call; a failed setup fails the call itself, which then says why. */
async function prepare(plan: Plan, tool: ToolCallback, init: ToolExecutionInit): Promise<void> {
  await tool.prepare!().then(
    () => prepared.add(tool),
    () => undefined,
  )
  if (init.onToolExecution) {
    const ready = now()
    // A validator already compiled takes microseconds; only real setup is worth reporting.
    if (ready - plan.started >= SETUP_REPORTED_MS) plan.setupMs = ready - plan.started
    plan.started = ready
  }
}

/** Calls the tool; a throw or rejection becomes an `Error:` response, unless the turn was aborted. */
async function run(
  plan: Plan,
  tool: ToolCallback,
  values: Readonly<Record<string, unknown>>,
  init: ToolExecutionInit,
): Promise<ToolResponse> {
  const context = new CallContext(values, init.advisorContext ?? {}, plan, init.signal, init.advisors)
  let returned: unknown
  try {
    // Arguments that are not JSON go to the tool as text: its own parse says what is wrong.
    returned = await (plan.args === undefined
      ? tool.call(plan.call.arguments, context)
      : callParsed(tool, plan.call.arguments, plan.args, context))
  } catch (thrown) {
    return failed(plan, init, thrown)
  }
  return answer(plan, init, returned)
}

/** A call's response for what its tool returned: a hand-written ToolCallback may return anything, the model only ever gets a string. */
function answer(plan: Plan, init: ToolExecutionInit, returned: unknown): ToolResponse {
  let result: string
  try {
    result = typeof returned === 'string' ? returned : encodeResult(returned, plan.call.name)
  } catch (thrown) {
    return failed(plan, init, thrown)
  }
  return ended(plan, init, result, false)
}

/** A call's `Error:` response for what its tool threw; an aborted turn rejects instead. */
function failed(plan: Plan, init: ToolExecutionInit, thrown: unknown): ToolResponse {
  if (init.signal?.aborted) throw abortError(init.signal)
  return ended(plan, init, errorResponse(plan.call.name, thrown), true)
}

/** Tools whose `prepare` succeeded once: ready for every later call. */
const prepared = new WeakSet<ToolCallback>()

function planned(call: ToolCall, tool: ToolCallback | undefined, answer: string | undefined, args?: unknown): Plan {
  return {
    call,
    args,
    tool,
    answer,
    started: 0,
    setupMs: undefined,
    detail: undefined,
    returnDirect: false,
  }
}

function reportStart(plan: Plan, report: (event: ToolExecutionEvent) => void): void {
  // Durations exist only in the listener's events, so without one the clock is not read.
  plan.started = now()
  const source = plan.tool?.metadata.source
  const event: ToolExecutionEvent = { type: 'start', toolCall: plan.call, at: plan.started }
  if (source) event.source = source
  report(event)
}

/** The response of a call, after reporting its end; `failed`: the result is an `Error:` response. */
function ended(plan: Plan, init: ToolExecutionInit, result: string, failed: boolean): ToolResponse {
  const call = plan.call
  const tool = plan.tool
  plan.returnDirect = !failed && plan.answer === undefined && tool?.metadata.returnDirect === true
  const report = init.onToolExecution
  if (report) {
    const at = now()
    const event: ToolExecutionEvent & { type: 'end' } = {
      type: 'end',
      toolCall: call,
      result,
      durationMs: at - plan.started,
      returnDirect: plan.returnDirect,
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

const SETUP_REPORTED_MS = 0.5
const NO_VALUES: Readonly<Record<string, unknown>> = Object.freeze({})

interface Plan {
  call: ToolCall
  /** The call's arguments parsed (undefined when they are not JSON, or the call does not run). */
  args: unknown
  tool: ToolCallback | undefined
  /** Set when the call does not run: an `Error:` saying why, or an advisor's answer (e.g. the user declined it). */
  answer: string | undefined
  /** `performance.now()` when the call started (after its setup), when a listener is told. */
  started: number
  setupMs: number | undefined
  /** The last thing the tool reported about the call (`ToolContext.report`). */
  detail: Record<string, unknown> | undefined
  returnDirect: boolean
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

/**
 * The result of a round; the history is built on first read: the tool loop appends `appended` to
 * its own history instead. A class: its getter is shared on the prototype, so each round makes one plain object.
 */
class RoundResult implements ToolExecutionResult {
  // Declared and set by the constructor, as CallContext's fields.
  declare readonly appended: readonly [AssistantMessage, ToolResponseMessage]
  declare readonly returnDirect: boolean
  readonly #messages: readonly Message[]
  #history: Message[] | undefined

  constructor(
    messages: readonly Message[],
    appended: readonly [AssistantMessage, ToolResponseMessage],
    returnDirect: boolean,
  ) {
    this.appended = appended
    this.returnDirect = returnDirect
    this.#messages = messages
  }

  get conversationHistory(): Message[] {
    return (this.#history ??= [...this.#messages, ...this.appended])
  }
}

/**
 * What a tool is given with a call. Its signal is the turn's; a turn without one still gives one
 * to a tool that asks, made then: a call the tool starts with it is known as this run's (runSignal).
 */
class CallContext implements ToolContext {
  // Declared and set by the constructor: fields defined first on each new context cost 0.4% of a warm round (bench-peers, Node).
  declare values: Readonly<Record<string, unknown>>
  declare advisorContext: Record<string, unknown>
  declare readonly advisors: readonly AnyAdvisor[] | undefined
  declare readonly toolCall: ToolCall
  declare readonly report: (detail: Record<string, unknown>) => void
  #signal: AbortSignal | undefined

  constructor(
    values: Readonly<Record<string, unknown>>,
    advisorContext: Record<string, unknown>,
    plan: Plan,
    signal: AbortSignal | undefined,
    advisors: readonly AnyAdvisor[] | undefined,
  ) {
    this.values = values
    this.advisorContext = advisorContext
    this.advisors = advisors
    this.toolCall = plan.call
    this.#signal = signal
    this.report = (reported) => {
      plan.detail = reported
    }
  }

  get signal(): AbortSignal {
    const runId = this.advisorContext[RUN_ID_KEY]
    return (this.#signal ??= runSignal(typeof runId === 'string' ? runId : undefined))
  }

  set signal(signal: AbortSignal) {
    this.#signal = signal
  }
}

function errorResponse(toolName: string, thrown: unknown): string {
  if (thrown instanceof ToolCallError) return `Error: ${thrown.message}`
  return `Error: tool '${toolName}' failed: ${thrownMessage(thrown)}`
}
