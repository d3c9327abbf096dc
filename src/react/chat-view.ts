import type { Message } from '../core'
import type { RunView } from '../trace'

/** A tool call as a chat UI shows it: what was asked, and what came back. */
export interface ToolCallView {
  id: string
  name: string
  arguments: string
  status: 'running' | 'done' | 'error'
  result?: string
}

/** One bubble of a chat UI. */
export interface ChatMessageView {
  id: string
  role: 'user' | 'assistant'
  text: string
  /** What the model thought before answering, apart from the answer (reasoning models). */
  reasoning?: string
  toolCalls: ToolCallView[]
  /** An assistant answer still arriving. */
  pending?: boolean
  /** Why the answer is missing or incomplete (stopped, failed). */
  problem?: string
}

let counter = 0
export const viewId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

/** Stored messages as bubbles: tool calls and their results are folded into the assistant's bubble. */
export function toViews(messages: readonly Message[]): ChatMessageView[] {
  const views: ChatMessageView[] = []
  const calls = new Map<string, ToolCallView>()
  for (const message of messages) {
    if (message.role === 'user') views.push({ id: viewId('u'), role: 'user', text: message.text, toolCalls: [] })
    else if (message.role === 'assistant') {
      const last = views.at(-1)
      const bubble: ChatMessageView =
        last?.role === 'assistant' ? last : { id: viewId('a'), role: 'assistant', text: '', toolCalls: [] }
      if (bubble !== last) views.push(bubble)
      if (message.text) bubble.text = bubble.text ? `${bubble.text}\n\n${message.text}` : message.text
      if (message.reasoning) bubble.reasoning = joined(bubble.reasoning, message.reasoning)
      for (const call of message.toolCalls) {
        const view: ToolCallView = { id: call.id, name: call.name, arguments: call.arguments, status: 'running' }
        calls.set(call.id, view)
        bubble.toolCalls.push(view)
      }
    } else if (message.role === 'tool') {
      for (const response of message.responses) {
        const view = calls.get(response.id)
        if (view)
          Object.assign(view, {
            result: response.responseData,
            status: response.responseData.startsWith('Error:') ? 'error' : 'done',
          })
      }
    }
  }
  return views
}

/** Reasoning of a later round starts a new paragraph. */
export function joined(before: string | undefined, after: string): string {
  return before ? `${before}\n\n${after}` : after
}

/** The tool calls of a run as the trace reader groups them, in the order the model made them. */
export function toolCallViews(run: RunView): ToolCallView[] {
  const views: ToolCallView[] = []
  for (const round of run.rounds)
    for (const span of round.tools)
      views.push({
        id: span.id,
        name: span.name,
        arguments: span.arguments,
        status: span.end === undefined ? 'running' : span.error === undefined ? 'done' : 'error',
        ...(span.result === undefined ? {} : { result: span.result }),
      })
  return views
}
