import type { ChatOptions, Message } from '../core'
import type { TraceEvent, TraceEventOf } from './events'
import { reconstructMessages } from './file'

/** What to change in a round before it runs again. Plain data, so it crosses from a test or the devtools. */
export interface ForkEdits {
  /** New text for messages of the round's prompt, by position from 0 (system, user or assistant messages). */
  messages?: Array<{ index: number; text: string }>
  /** New results for the tool calls answered in the round's prompt, by tool call id. */
  toolResults?: Record<string, string>
  options?: {
    model?: string
    temperature?: number
    /** `false` tells the model not to call tools in the fork (tool choice `none`). */
    tools?: boolean
  }
}

/** Which round of which recorded run to run again, and how to change it first. */
export interface ForkRunRequest {
  /** The events of the recorded run (other runs may be in there too). */
  trace: readonly TraceEvent[]
  /** The run to fork; may be left out when the trace holds only one run. */
  runId?: string
  /** The round to run again, from 1. The rounds before it are taken from the trace. */
  round: number
  edits?: ForkEdits
}

/** The request a fork sends: the round's prompt as recorded, with the edits applied. */
export interface ForkPlan {
  forkOf: { runId: string; round: number }
  /** How the original run was made (a call or a stream), so the fork is made the same way. */
  mode: 'call' | 'stream'
  messages: Message[]
  /** The recorded options that are plain data (no tools, whose code the client supplies), edited. */
  options: Omit<ChatOptions, 'tools' | 'toolContext' | 'providerOptions'>
}

export class ForkError extends Error {
  override readonly name = 'ForkError'
}

/**
 * Builds the request of a fork from a trace: the exact prompt the model received in that round
 * (after every advisor's changes), with message texts, tool results and options replaced as asked.
 * The trace may come from a file, so every edit is checked against what was recorded.
 */
export function forkPlan(request: ForkRunRequest): ForkPlan {
  const { trace, round } = request
  const runId = request.runId ?? onlyRun(trace)
  if (!Number.isInteger(round) || round < 1)
    throw new ForkError(`The round to fork must be a whole number from 1, got ${round}`)
  const requests = trace.filter(
    (event): event is TraceEventOf<'model-request'> => event.type === 'model-request' && event.runId === runId,
  )
  if (requests.length === 0) throw new ForkError(`The trace holds no model request of run ${runId}`)
  const recorded = requests.filter((event) => event.round === round).sort((a, b) => b.seq - a.seq)[0]
  if (!recorded) {
    const rounds = [...new Set(requests.map((event) => event.round))].sort((a, b) => a - b).join(', ')
    throw new ForkError(`Round ${round} of run ${runId} has no recorded request (rounds with one: ${rounds})`)
  }
  const messages = reconstructMessages(trace, recorded).map((message) => ({ ...message }))
  const edits = request.edits ?? {}
  for (const { index, text } of edits.messages ?? []) editText(messages, index, text, round)
  editToolResults(messages, edits.toolResults ?? {}, round)
  const start = trace.find((event) => event.type === 'run-start' && event.runId === runId)
  const mode = start?.type === 'run-start' ? start.mode : 'call'
  return { forkOf: { runId, round }, mode, messages, options: editOptions(recorded.options, edits.options) }
}

function onlyRun(trace: readonly TraceEvent[]): string {
  const runs = [...new Set(trace.map((event) => event.runId))]
  if (runs.length === 1) return runs[0]!
  throw new ForkError(
    runs.length === 0
      ? 'The trace is empty: there is no run to fork'
      : `The trace holds ${runs.length} runs; say which one to fork (runId)`,
  )
}

function editText(messages: Message[], index: number, text: string, round: number): void {
  const message = messages[index]
  if (!message)
    throw new ForkError(`Round ${round}'s prompt has ${messages.length} messages; there is no message ${index}`)
  if (message.role === 'tool')
    throw new ForkError(
      `Message ${index} of round ${round} holds tool results; edit them by tool call id (toolResults)`,
    )
  if (typeof text !== 'string') throw new ForkError(`The new text of message ${index} must be a string`)
  messages[index] = { ...message, text }
}

function editToolResults(messages: Message[], results: Record<string, string>, round: number): void {
  const wanted = new Map(Object.entries(results))
  if (wanted.size === 0) return
  messages.forEach((message, index) => {
    if (message.role !== 'tool' || !message.responses.some((response) => wanted.has(response.id))) return
    messages[index] = {
      ...message,
      responses: message.responses.map((response) => {
        const result = wanted.get(response.id)
        if (result === undefined) return response
        wanted.delete(response.id)
        return { ...response, responseData: result }
      }),
    }
  })
  if (wanted.size > 0) {
    const known = messages.flatMap((message) => (message.role === 'tool' ? message.responses.map((r) => r.id) : []))
    throw new ForkError(
      `Round ${round}'s prompt has no result for tool call ${[...wanted.keys()].join(', ')} (it has: ${known.join(', ') || 'none'})`,
    )
  }
}

function editOptions(
  recorded: TraceEventOf<'model-request'>['options'],
  edits: ForkEdits['options'],
): ForkPlan['options'] {
  const { tools: _tools, toolContextKeys: _keys, providerOptions: _provider, ...plain } = recorded
  const options: ForkPlan['options'] = { ...plain }
  if (edits?.model !== undefined) {
    if (typeof edits.model !== 'string' || edits.model.trim() === '')
      throw new ForkError('The model of a fork must be a name')
    options.model = edits.model.trim()
  }
  if (edits?.temperature !== undefined) {
    if (!(Number.isFinite(edits.temperature) && edits.temperature >= 0))
      throw new ForkError(`The temperature of a fork must be a number from 0, got ${edits.temperature}`)
    options.temperature = edits.temperature
  }
  if (edits?.tools === false) options.toolChoice = 'none'
  else if (edits?.tools === true && options.toolChoice === 'none') delete options.toolChoice
  return options
}
