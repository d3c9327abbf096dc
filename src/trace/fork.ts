import { REDACTED, type ChatOptions, type Message, type UserPart } from '../core'
import { linkedAttachment } from './attachment-links'
import type { TraceEvent, TraceEventOf } from './events'
import { reconstructMessages } from './file'
import { validateEvent } from './validate-event'

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
 * The trace may come from a file or be edited by hand, and the request from anywhere (a panel, a
 * test, JSON): the trace's events, every edit and the prompt that results are checked, and anything
 * that a model could not be sent as asked is a ForkError that says what.
 */
export function forkPlan(request: ForkRunRequest): ForkPlan {
  if (!isObject(request)) throw new ForkError('A fork request must be an object ({ trace, round, runId?, edits? })')
  const { round } = request
  const trace = checkedTrace(request.trace)
  if (request.runId !== undefined && typeof request.runId !== 'string')
    throw new ForkError(`The run to fork (runId) must be a run id, got ${shown(request.runId)}`)
  const runId = request.runId ?? onlyRun(trace)
  if (!Number.isInteger(round) || round < 1)
    throw new ForkError(`The round to fork must be a whole number from 1, got ${shown(round)}`)
  const requests = trace.filter(
    (event): event is TraceEventOf<'model-request'> => event.type === 'model-request' && event.runId === runId,
  )
  if (requests.length === 0) throw new ForkError(`The trace holds no model request of run ${runId}`)
  const recorded = requests.filter((event) => event.round === round).sort((a, b) => b.seq - a.seq)[0]
  if (!recorded) {
    const rounds = [...new Set(requests.map((event) => event.round))].sort((a, b) => a - b).join(', ')
    throw new ForkError(`Round ${round} of run ${runId} has no recorded request (rounds with one: ${rounds})`)
  }
  let messages: Message[]
  try {
    messages = reconstructMessages(trace, recorded).map((message) => ({ ...message }))
  } catch (error) {
    throw new ForkError((error as Error).message)
  }
  const edits = checkedEdits(request.edits)
  for (const { index, text } of edits.messages ?? []) editText(messages, index, text, round)
  editToolResults(messages, edits.toolResults ?? {}, round)
  checkConversation(messages, round)
  messages.forEach((message, index) => {
    if (message.role === 'user' && message.parts)
      messages[index] = { ...message, parts: resolvedParts(message.parts, index, round) }
  })
  const start = trace.find((event) => event.type === 'run-start' && event.runId === runId)
  const mode = start?.type === 'run-start' ? start.mode : 'call'
  return { forkOf: { runId, round }, mode, messages, options: editOptions(recorded.options, edits.options) }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A value as an error message shows it: JSON, cut short (a string in quotes, `undefined` as is). */
function shown(value: unknown): string {
  const text = value === undefined ? 'undefined' : typeof value === 'number' ? String(value) : JSON.stringify(value)
  return text === undefined ? typeof value : text.length > 60 ? `${text.slice(0, 60)}…` : text
}

/** The trace as checked events: a trace file's rules apply to a trace handed over in the page. */
function checkedTrace(trace: unknown): TraceEvent[] {
  if (!Array.isArray(trace))
    throw new ForkError(`The trace to fork must be an array of trace events, got ${shown(trace)}`)
  return trace.map((event: unknown, index) => {
    try {
      return validateEvent(event)
    } catch (error) {
      throw new ForkError(`Event ${index} of the trace is not a trace event: ${(error as Error).message}`)
    }
  })
}

/** Only what ForkEdits names, each of its type: a misspelt edit is an error, never ignored. */
function checkedEdits(edits: unknown): ForkEdits {
  if (edits === undefined) return {}
  if (!isObject(edits)) throw new ForkError(`The edits of a fork must be an object, got ${shown(edits)}`)
  onlyKeys(edits, ['messages', 'toolResults', 'options'], 'The edits of a fork')
  const { messages, toolResults, options } = edits
  if (messages !== undefined) {
    if (!Array.isArray(messages)) throw new ForkError(`edits.messages must be an array, got ${shown(messages)}`)
    messages.forEach((edit: unknown, at) => {
      if (!isObject(edit)) throw new ForkError(`edits.messages[${at}] must be { index, text }, got ${shown(edit)}`)
      onlyKeys(edit, ['index', 'text'], `edits.messages[${at}]`)
    })
  }
  if (toolResults !== undefined) {
    if (!isObject(toolResults))
      throw new ForkError(`edits.toolResults must be an object of results by tool call id, got ${shown(toolResults)}`)
    for (const [id, result] of Object.entries(toolResults))
      if (typeof result !== 'string')
        throw new ForkError(
          `The new result of tool call ${id} must be a string (a tool's result text), got ${shown(result)}`,
        )
  }
  if (options !== undefined) {
    if (!isObject(options)) throw new ForkError(`edits.options must be an object, got ${shown(options)}`)
    onlyKeys(options, ['model', 'temperature', 'tools'], 'edits.options')
    if (options['tools'] !== undefined && typeof options['tools'] !== 'boolean')
      throw new ForkError(`edits.options.tools must be true or false, got ${shown(options['tools'])}`)
  }
  return edits
}

function onlyKeys(value: Record<string, unknown>, known: readonly string[], what: string): void {
  for (const key of Object.keys(value))
    if (!known.includes(key)) throw new ForkError(`Unknown field '${key}' in ${what} (known: ${known.join(', ')})`)
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

function editText(messages: Message[], index: unknown, text: unknown, round: number): void {
  // Only a position of the prompt: not -1, 1.5, '1' or 99.
  const message = typeof index === 'number' && Number.isInteger(index) && index >= 0 ? messages[index] : undefined
  if (!message)
    throw new ForkError(
      `Round ${round}'s prompt has ${messages.length} messages (0 to ${messages.length - 1}); there is no message ${shown(index)}`,
    )
  if (message.role === 'tool')
    throw new ForkError(
      `Message ${shown(index)} of round ${round} holds tool results; edit them by tool call id (toolResults)`,
    )
  if (typeof text !== 'string')
    throw new ForkError(`The new text of message ${shown(index)} must be a string, got ${shown(text)}`)
  messages[index as number] = { ...message, text }
}

function editToolResults(messages: Message[], results: Readonly<Record<string, string>>, round: number): void {
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

/**
 * The prompt after the edits is one a model takes: system messages first, a user message, every
 * tool message answering calls of the assistant message before it, each call answered once, and
 * calls left unanswered only by the last message (the loop runs their tools first). A trace edited
 * by hand may hold anything: `[tool, system, assistant, tool]` would go out with the user lost.
 */
function checkConversation(messages: readonly Message[], round: number): void {
  const refuse = (index: number, what: string): never => {
    throw new ForkError(`Round ${round}'s prompt cannot be sent: message ${index} (${messages[index]!.role}) ${what}`)
  }
  if (!messages.some((message) => message.role === 'user'))
    throw new ForkError(`Round ${round}'s prompt cannot be sent: it has no user message`)
  let unanswered = new Set<string>()
  let calledAt = -1
  messages.forEach((message, index) => {
    if (message.role === 'system' && index > 0 && messages[index - 1]!.role !== 'system')
      refuse(index, 'comes after the conversation began (system messages go first)')
    if (message.role === 'tool') {
      if (message.responses.length === 0) refuse(index, 'holds no tool result')
      for (const { id } of message.responses)
        if (!unanswered.delete(id))
          refuse(
            index,
            `answers tool call ${id}, which the assistant message before it did not make or another result answered`,
          )
      return
    }
    if (unanswered.size > 0)
      refuse(calledAt, `leaves tool call ${[...unanswered].join(', ')} without a result before message ${index}`)
    if (message.role === 'assistant') {
      unanswered = new Set(message.toolCalls.map((call) => call.id))
      calledAt = index
      if (unanswered.size < message.toolCalls.length) refuse(index, 'makes two tool calls with one id')
    }
  })
}

/**
 * The attachments of a recorded user message, as a fork sends them: a Blob of this page comes back
 * from its link; bytes the trace left out (a large data URL, a file's data, a Blob of another page
 * or of a page since reloaded) or a URL the redactor masked cannot be sent again, and refuse the fork.
 */
function resolvedParts(parts: readonly UserPart[], index: number, round: number): UserPart[] {
  return parts.map((part, at) => {
    if (part.type === 'text') return part
    const source = part.type === 'image' ? part.image : part.data
    if (typeof source !== 'string') return part
    const what = `Message ${index} of round ${round} had ${part.type === 'image' ? 'an image' : 'a file'} (part ${at}${part.name ? `, ${part.name}` : ''}${part.mediaType ? `, ${part.mediaType}` : ''}${part.size !== undefined ? `, ${part.size} bytes` : ''})`
    if (source.startsWith('blob:')) {
      const blob = linkedAttachment(source)
      if (!blob)
        throw new ForkError(
          `${what} that was a Blob of the page that recorded the run; the trace keeps no bytes, and ${source} is not one of this page's`,
        )
      return part.type === 'image' ? { ...part, image: blob } : { ...part, data: blob }
    }
    if (source === '')
      throw new ForkError(
        `${what} whose bytes the trace left out (it keeps a link, or an image's data URL up to 64 KB); fork in the page that recorded the run, or attach it again`,
      )
    if (source.includes(REDACTED)) throw new ForkError(`${what} whose URL held a secret and was masked in the trace`)
    return part
  })
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
