import {
  assistantMessageOf,
  partsOf,
  toolResponseMessage,
  userMessageOf,
  type UserPart,
  type AssistantPart,
  type FilePart,
  type ImagePart,
  type Message,
  type ReasoningPart,
  type TextPart,
  type ToolCallback,
  type TypedTool,
  type Escalation,
} from '../../core'

import { APPROVALS_METADATA, ROUNDS_METADATA, declinedCallText } from '../../advisors'

/** A tool call as a chat UI shows it: what was asked, and what came back. */
export interface ToolCallView {
  id: string
  name: string
  arguments: string
  status: 'running' | 'done' | 'error' | 'denied' | 'pending'
  result?: string
}

/**
 * Where a tool call is: its arguments streaming, waiting for the user, running, done, failed,
 * denied by the user (it never ran), or pending: restored from memory without ever having run (the
 * page closed mid-turn; `resume()` runs it).
 */
export type ToolCallState =
  'streaming-arguments' | 'awaiting-approval' | 'running' | 'done' | 'error' | 'denied' | 'pending'

/** How the user answered a call that needed approval, or `requested` while asked. */
export type ToolApprovalMark = 'requested' | 'approved' | 'edited' | 'rejected'

/**
 * A tool call in a bubble's parts, where it happened between the texts, with its state. With the
 * tools' types (`useChat<typeof tools[number]>`), `name` tells which tool and `input` is typed by
 * its schema.
 */
export interface ToolCallPartView<Name extends string = string, Input = unknown> {
  type: 'tool-call'
  id: string
  name: Name
  /** Raw JSON text; while `streaming-arguments`, what arrived so far. */
  arguments: string
  /** The arguments parsed, once they are whole and are JSON (what the tool was called with). */
  input?: Input
  state: ToolCallState
  /** The text the tool gave back (none for a denied call: it never ran). */
  result?: string
  /** For a call the user denied: what they said, if anything (the model is told more, in its own words). */
  reason?: string
  /** Set when the call needed the user's approval: asked, or how it was answered. */
  approval?: ToolApprovalMark
  /**
   * When the call runs a sub-agent (`agentTool`) in a streamed answer: what the sub-agent has done
   * so far, as the parts of a bubble (its text, its own tool calls, their sub-agents).
   */
  agentParts?: ChatPartView[]
}

/** The tool call part of one tool made with `defineTool` (a union of tools gives a union of parts). */
export type ToolPartOf<T> = T extends TypedTool<infer Name, infer Input> ? ToolCallPartView<Name, Input> : never

/** The tool parts of a bubble: typed by the tools when given, else any tool's. */
export type ToolParts<Tools> = [Tools] extends [TypedTool<string, unknown>] ? ToolPartOf<Tools> : ToolCallPartView

/** One part of a bubble, in the order it happened. */
export type ChatPartView<Tools = ToolCallback> = TextPart | ReasoningPart | ToolParts<Tools> | ImagePart | FilePart

/** One bubble of a chat UI. */
export interface ChatMessageView<Tools = ToolCallback> {
  id: string
  role: 'user' | 'assistant'
  /** All the text of the bubble (rounds of a turn as paragraphs). */
  text: string
  /** What the model thought before answering, apart from the answer (reasoning models). */
  reasoning?: string
  toolCalls: ToolCallView[]
  /** Text, reasoning, tool calls (assistant) or text and attachments (user), in order. */
  parts: ChatPartView<Tools>[]
  /** An assistant answer still arriving. */
  pending?: boolean
  /** Why the answer is missing or incomplete (stopped, failed). */
  problem?: string
  /** The model that wrote the answer's last round, as its response names it. */
  model?: string
  /** That round left the client's model for a fallback (EscalationAdvisor): which models, and why. */
  escalation?: Escalation
  /**
   * On a session: the first bubble the model still sees. The bubbles before it were covered by
   * compaction (shown, but no longer sent); none has it while the model sees the whole conversation.
   */
  viewStart?: boolean
}

let counter = 0
export const viewId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

/** A bubble whose text, reasoning and tool calls are read off its parts. */
export function bubbleOf(
  base: Pick<ChatMessageView, 'id' | 'role'> & Partial<ChatMessageView>,
  parts: ChatPartView[],
): ChatMessageView {
  let text = ''
  let reasoning: string | undefined
  const toolCalls: ToolCallView[] = []
  for (const part of parts) {
    if (part.type === 'text') text = withParagraph(text, part.text)
    else if (part.type === 'reasoning') reasoning = joined(reasoning, part.text)
    else if (part.type === 'tool-call') toolCalls.push(toolCallView(part))
  }
  const { reasoning: _stale, ...rest } = base
  return { ...rest, text, ...(reasoning ? { reasoning } : {}), toolCalls, parts }
}

/** States a call stays in when its answer ends early. */
const SETTLED: readonly ToolCallState[] = ['done', 'error', 'denied', 'pending']

/** What a stopped answer says. */
export const STOPPED = 'Stopped.'

/**
 * A bubble whose answer ended early (stopped, or failed with `problem`): no longer pending, and its
 * tool calls that had not finished (arguments streaming, waiting for approval, running) closed
 * with the same problem, so none shows as still going or still asking.
 */
export function interruptedBubble(bubble: ChatMessageView, problem: string): ChatMessageView {
  const parts = bubble.parts.map((part) =>
    part.type === 'tool-call' && !SETTLED.includes(part.state)
      ? { ...part, state: 'error' as const, result: problem }
      : part,
  )
  return bubbleOf({ ...bubble, pending: false, problem }, parts)
}

export function toolCallView(part: ToolCallPartView): ToolCallView {
  const status = SETTLED.includes(part.state) ? (part.state as ToolCallView['status']) : 'running'
  return {
    id: part.id,
    name: part.name,
    arguments: part.arguments,
    status,
    ...(part.result === undefined ? {} : { result: part.result }),
  }
}

/**
 * Stored messages as bubbles: the messages of a turn (tool calls, results, later rounds) fold into
 * one assistant bubble. A call's approval mark comes back from its message; a call with no result
 * is `pending` (the page closed before it ran), a rejected one `denied`.
 */
export function toViews(messages: readonly Message[]): ChatMessageView[] {
  const views: Array<{ id: string; role: 'user' | 'assistant'; parts: ChatPartView[] }> = []
  const calls = new Map<string, number>()
  for (const message of messages.flatMap(withRounds)) {
    if (message.role === 'user')
      views.push({ id: viewId('u'), role: 'user', parts: partsOf(message) as ChatPartView[] })
    else if (message.role === 'assistant') {
      let bubble = views.at(-1)
      if (bubble?.role !== 'assistant') views.push((bubble = { id: viewId('a'), role: 'assistant', parts: [] }))
      for (const part of partsOf(message) as AssistantPart[]) {
        if (part.type !== 'tool-call') bubble.parts.push({ ...part })
        else {
          calls.set(part.id, views.length - 1)
          const approval = approvalMarksOf(message)?.[part.id]
          const input = parsedArguments(part.arguments)
          bubble.parts.push({
            type: 'tool-call',
            id: part.id,
            name: part.name,
            arguments: part.arguments,
            ...(input === undefined ? {} : { input }),
            state: 'pending',
            ...(approval ? { approval } : {}),
          })
        }
      }
    } else if (message.role === 'tool') {
      for (const response of message.responses) {
        const at = calls.get(response.id)
        if (at === undefined) continue
        views[at]!.parts = views[at]!.parts.map((part) =>
          part.type === 'tool-call' && part.id === response.id
            ? part.approval === 'rejected'
              ? deniedPart(part, response.responseData)
              : {
                  ...part,
                  result: response.responseData,
                  state: response.responseData.startsWith('Error:') ? 'error' : 'done',
                }
            : part,
        )
      }
    }
  }
  return views.map((view) => bubbleOf(view, view.parts))
}

/** A denied call restored: no result to show, and the user's words read back from what the model was told. */
function deniedPart(part: ToolCallPartView, told: string): ToolCallPartView {
  const reason = /The user said: "([\s\S]*)"\. Do not try it again/.exec(told)?.[1]
  const { result: _told, ...rest } = part
  return { ...rest, state: 'denied', ...(reason ? { reason } : {}) }
}

/** Whether `value` is an object whose `keys` all hold strings. */
function hasStrings(value: unknown, keys: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    keys.every((key) => typeof (value as Record<string, unknown>)[key] === 'string')
  )
}

/**
 * A stored answer and, before it, the rounds of its turn that memory outside the loop kept with it
 * (ROUNDS_METADATA): what storage gives is not trusted, so anything that is not a tool round is left out.
 */
function withRounds(message: Message): Message[] {
  const rounds = message.role === 'assistant' ? message.metadata?.[ROUNDS_METADATA] : undefined
  if (!Array.isArray(rounds)) return [message]
  const valid = rounds.filter(
    (round: Partial<Message> | null) =>
      (round?.role === 'assistant' &&
        typeof round.text === 'string' &&
        Array.isArray(round.toolCalls) &&
        round.toolCalls.every((call) => hasStrings(call, ['id', 'name', 'arguments']))) ||
      (round?.role === 'tool' &&
        Array.isArray(round.responses) &&
        round.responses.every((response) => hasStrings(response, ['id', 'responseData']))),
  ) as Message[]
  return [...valid, message]
}

/** A bubble's text with a new text part: a paragraph of its own, unless the text so far ends in a space. */
export function withParagraph(text: string, part: string): string {
  return text && !/\s$/.test(text) ? `${text}\n\n${part}` : text + part
}

/** Reasoning of a later round starts a new paragraph. */
export function joined(before: string | undefined, after: string): string {
  return before ? `${before}\n\n${after}` : after
}

/** A call's arguments as a value: undefined until they are whole JSON. */
export function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text || '{}') as unknown
  } catch {
    return undefined
  }
}

const MARKS: readonly string[] = ['requested', 'approved', 'edited', 'rejected']

/** The approval marks a ToolApprovalAdvisor left on an assistant message (by tool call id); anything else is ignored. */
function approvalMarksOf(message: Message): Record<string, ToolApprovalMark> | undefined {
  const marks = message.metadata?.[APPROVALS_METADATA]
  if (!marks || typeof marks !== 'object') return undefined
  const valid: Record<string, ToolApprovalMark> = {}
  for (const [id, mark] of Object.entries(marks))
    if (MARKS.includes(mark as string)) valid[id] = mark as ToolApprovalMark
  return valid
}

/**
 * Bubbles as the messages they stand for (what `toViews` reads back): a user bubble is its message;
 * an assistant bubble one message per round (its text and calls), each followed by the results of
 * its calls that have one. Approval marks go back on the message.
 */
export function messagesOf(views: readonly ChatMessageView[]): Message[] {
  const messages: Message[] = []
  for (const view of views) {
    if (view.role === 'user') {
      messages.push(userMessageOf(view.parts as UserPart[]))
      continue
    }
    let round: AssistantPart[] = []
    let calls: ToolCallPartView[] = []
    const flush = () => {
      if (round.length === 0) return
      const marks = Object.fromEntries(calls.filter((call) => call.approval).map((call) => [call.id, call.approval]))
      const metadata = Object.keys(marks).length > 0 ? { [APPROVALS_METADATA]: marks } : undefined
      messages.push(assistantMessageOf(round, metadata))
      const answered = calls.flatMap((call) => {
        const responseData = call.state === 'denied' ? declinedCallText(call, call.reason) : call.result
        return responseData === undefined ? [] : [{ id: call.id, name: call.name, responseData }]
      })
      if (answered.length > 0) messages.push(toolResponseMessage(answered))
      round = []
      calls = []
    }
    for (const part of view.parts) {
      // Text after a round's calls is the next round's.
      if (part.type !== 'tool-call' && round.at(-1)?.type === 'tool-call') flush()
      if (part.type === 'tool-call') {
        round.push({ type: 'tool-call', id: part.id, name: part.name, arguments: part.arguments })
        calls.push(part)
      } else if (part.type === 'text' || part.type === 'reasoning') round.push(part)
    }
    flush()
  }
  return messages
}
