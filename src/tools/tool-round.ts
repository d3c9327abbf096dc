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
  type ChatResponse,
  type Prompt,
  type ToolCallback,
} from '../core'
import type { ManagerSettings, ToolExecutionInit, ToolExecutionResult } from './manager'
import { ToolCallError, ToolCallLimitExceededError } from './tool-errors'
import { toolMap } from './tool-map'
import { encodeResult } from './tool-result'
import { TurnLedger } from './turn'

// One round of tool calls, loaded with the first one (see ToolCallingManager).

/** Runs the tool calls of one round: plans them (unknown tools, limits, repeats), runs the rest, and builds the history. */
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
  const values = Object.freeze({ ...prompt.options.toolContext })
  const outcomes = await Promise.all(plans.map((plan) => execute(plan, tools, values, init)))
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
function plan(
  settings: ManagerSettings,
  ledger: TurnLedger,
  calls: readonly ToolCall[],
  tools: ReadonlyMap<string, ToolCallback>,
  answers: Readonly<Record<string, unknown>> | undefined,
): { plans: Plan[]; breach?: string } {
  const plans: Plan[] = []
  for (const call of calls) {
    const planned = planCall(settings, ledger, call, tools, answers)
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

async function execute(
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
