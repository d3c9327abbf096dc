import type { StreamPart } from '../../core'
import { parsedArguments, type ChatPartView, type ToolCallPartView } from './chat-view'

/**
 * An assistant bubble's parts after one event of `.stream().parts()`: deltas run on in the part
 * they continue (a new part after anything else, so text after a tool card is its own paragraph),
 * tool calls are found by id and move through their states. Returns the same array when the event
 * changes nothing a bubble shows.
 */
export function withStreamPart(parts: ChatPartView[], event: StreamPart): ChatPartView[] {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta': {
      const type = event.type === 'text-delta' ? 'text' : 'reasoning'
      const last = parts.at(-1)
      if (last?.type === type) return parts.with(-1, { type, text: last.text + event.delta })
      return [...parts, { type, text: event.delta }]
    }
    case 'tool-call-start':
      if (parts.some((part) => part.type === 'tool-call' && part.id === event.id)) return parts
      return [...parts, startedCall(event)]
  }
  const moved = callMove(event)
  if (!moved) return parts
  const index = parts.findIndex((part) => part.type === 'tool-call' && part.id === moved.id)
  if (index < 0) return parts
  const call = parts[index] as ToolCallPartView
  const next = moved.change(call)
  return next === call ? parts : parts.with(index, next)
}

/** The card of a tool call the model has just started. */
export function startedCall(event: { id: string; name: string }): ToolCallPartView {
  return { type: 'tool-call', id: event.id, name: event.name, arguments: '', state: 'streaming-arguments' }
}

/** How an event moves on the tool call it is about: the call's id and the change (none for other events). */
export function callMove(
  event: StreamPart,
): { id: string; change: (call: ToolCallPartView) => ToolCallPartView } | undefined {
  switch (event.type) {
    case 'tool-call-delta':
      return move(event.id, (call) => ({ ...call, arguments: call.arguments + event.argumentsDelta }))
    case 'tool-call':
      return move(event.id, (call) =>
        withArguments(
          { ...call, state: call.state === 'streaming-arguments' || call.state === 'pending' ? 'running' : call.state },
          event.arguments,
        ),
      )
    case 'approval-requested':
      return move(event.id, (call) => ({ ...call, state: 'awaiting-approval', approval: 'requested' }))
    case 'approval-decided':
      return move(event.id, (call) => {
        if (event.decision === 'reject')
          return { ...call, state: 'denied', approval: 'rejected', ...(event.detail ? { reason: event.detail } : {}) }
        const decided = {
          ...call,
          state: 'running' as const,
          approval: event.decision === 'edit' ? 'edited' : 'approved',
        } as const
        return event.decision === 'edit' && event.detail !== undefined ? withArguments(decided, event.detail) : decided
      })
    case 'tool-start':
      // A denied call is answered by the loop without running: it stays denied.
      return move(event.id, (call) => (call.state === 'denied' ? call : { ...call, state: 'running' }))
    case 'tool-result':
      // A denied call's result is what the model was told; the user sees their own words (`reason`).
      return move(event.id, (call) =>
        call.state === 'denied' ? call : { ...call, state: event.isError ? 'error' : 'done', result: event.result },
      )
    case 'agent-part':
      return move(event.id, (call) => {
        const earlier = call.agentParts ?? []
        const agentParts = withStreamPart(earlier, event.part)
        return agentParts === earlier ? call : { ...call, agentParts }
      })
    default:
      return undefined
  }
}

function move(id: string, change: (call: ToolCallPartView) => ToolCallPartView) {
  return { id, change }
}

/** The part a sub-agent's event carries, however deep the sub-agents nest. */
export function innermostPart(event: StreamPart): StreamPart {
  while (event.type === 'agent-part') event = event.part
  return event
}

/** A call with its whole arguments, and their value when they are JSON. */
function withArguments(call: ToolCallPartView, text: string): ToolCallPartView {
  const { input: _earlier, ...rest } = call
  const input = parsedArguments(text)
  return input === undefined ? { ...rest, arguments: text } : { ...rest, arguments: text, input }
}
