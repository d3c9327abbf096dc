import {
  partsOf,
  type AssistantPart,
  type FilePart,
  type ImagePart,
  type Message,
  type ReasoningPart,
  type TextPart,
} from '../core'

/** A tool call as a chat UI shows it: what was asked, and what came back. */
export interface ToolCallView {
  id: string
  name: string
  arguments: string
  status: 'running' | 'done' | 'error'
  result?: string
}

/** Where a tool call is: its arguments streaming, waiting for the user, running, done, or failed. */
export type ToolCallState = 'streaming-arguments' | 'awaiting-approval' | 'running' | 'done' | 'error'

/** A tool call in a bubble's parts, where it happened between the texts, with its state. */
export interface ToolCallPartView {
  type: 'tool-call'
  id: string
  name: string
  /** Raw JSON text; while `streaming-arguments`, what arrived so far. */
  arguments: string
  state: ToolCallState
  result?: string
  /** Set when the call needed the user's approval: asked, or how it was answered. */
  approval?: 'requested' | 'approved' | 'edited' | 'rejected'
}

/** One part of a bubble, in the order it happened. */
export type ChatPartView = TextPart | ReasoningPart | ToolCallPartView | ImagePart | FilePart

/** One bubble of a chat UI. */
export interface ChatMessageView {
  id: string
  role: 'user' | 'assistant'
  /** All the text of the bubble (rounds of a turn as paragraphs). */
  text: string
  /** What the model thought before answering, apart from the answer (reasoning models). */
  reasoning?: string
  toolCalls: ToolCallView[]
  /** Text, reasoning, tool calls (assistant) or text and attachments (user), in order. */
  parts: ChatPartView[]
  /** An assistant answer still arriving. */
  pending?: boolean
  /** Why the answer is missing or incomplete (stopped, failed). */
  problem?: string
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
    if (part.type === 'text') text = text && !/\s$/.test(text) ? `${text}\n\n${part.text}` : text + part.text
    else if (part.type === 'reasoning') reasoning = joined(reasoning, part.text)
    else if (part.type === 'tool-call') toolCalls.push(toolCallView(part))
  }
  const { reasoning: _stale, ...rest } = base
  return { ...rest, text, ...(reasoning ? { reasoning } : {}), toolCalls, parts }
}

/** What a stopped answer says. */
export const STOPPED = 'Stopped.'

/**
 * A bubble whose answer ended early (stopped, or failed with `problem`): no longer pending, and its
 * tool calls that had not finished (arguments streaming, waiting for approval, running) closed
 * with the same problem, so none shows as still going or still asking.
 */
export function interruptedBubble(bubble: ChatMessageView, problem: string): ChatMessageView {
  const parts = bubble.parts.map((part) =>
    part.type === 'tool-call' && part.state !== 'done' && part.state !== 'error'
      ? { ...part, state: 'error' as const, result: problem }
      : part,
  )
  return bubbleOf({ ...bubble, pending: false, problem }, parts)
}

function toolCallView(part: ToolCallPartView): ToolCallView {
  const status = part.state === 'done' || part.state === 'error' ? part.state : 'running'
  return {
    id: part.id,
    name: part.name,
    arguments: part.arguments,
    status,
    ...(part.result === undefined ? {} : { result: part.result }),
  }
}

/** Stored messages as bubbles: the messages of a turn (tool calls, results, later rounds) fold into one assistant bubble. */
export function toViews(messages: readonly Message[]): ChatMessageView[] {
  const views: Array<{ id: string; role: 'user' | 'assistant'; parts: ChatPartView[] }> = []
  const calls = new Map<string, number>()
  for (const message of messages) {
    if (message.role === 'user')
      views.push({ id: viewId('u'), role: 'user', parts: partsOf(message) as ChatPartView[] })
    else if (message.role === 'assistant') {
      let bubble = views.at(-1)
      if (bubble?.role !== 'assistant') views.push((bubble = { id: viewId('a'), role: 'assistant', parts: [] }))
      for (const part of partsOf(message) as AssistantPart[]) {
        if (part.type !== 'tool-call') bubble.parts.push({ ...part })
        else {
          calls.set(part.id, views.length - 1)
          bubble.parts.push({
            type: 'tool-call',
            id: part.id,
            name: part.name,
            arguments: part.arguments,
            state: 'running',
          })
        }
      }
    } else if (message.role === 'tool') {
      for (const response of message.responses) {
        const at = calls.get(response.id)
        if (at === undefined) continue
        views[at]!.parts = views[at]!.parts.map((part) =>
          part.type === 'tool-call' && part.id === response.id
            ? {
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

/** Reasoning of a later round starts a new paragraph. */
export function joined(before: string | undefined, after: string): string {
  return before ? `${before}\n\n${after}` : after
}
