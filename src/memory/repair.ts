import type { Message, ToolResponseMessage } from '../core'

export interface RepairedConversation {
  messages: Message[]
  /** Tool calls without a response and responses without a call (or answering one twice) that were dropped. */
  dropped: number
}

/**
 * A stored conversation that model APIs accept: every tool call of an assistant message has its
 * response in the tool messages right after it, and every response answers such a call once.
 * What does not fit is dropped, never answered with made-up text. With `keepPendingCalls` the
 * calls of a last assistant message that nothing answered yet stay (a turn to resume).
 */
export function dropOrphans(messages: readonly Message[], keepPendingCalls: boolean): RepairedConversation {
  const repaired: Message[] = []
  let dropped = 0
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role === 'tool') {
      dropped += message.responses.length
      continue
    }
    if (message.role !== 'assistant' || message.toolCalls.length === 0) {
      repaired.push(message)
      continue
    }
    let end = i + 1
    while (end < messages.length && messages[end]!.role === 'tool') end++
    if (keepPendingCalls && end === messages.length && end === i + 1) {
      repaired.push(message)
      continue
    }
    const answered = new Set<string>()
    for (let k = i + 1; k < end; k++) {
      for (const response of (messages[k] as ToolResponseMessage).responses) answered.add(response.id)
    }
    const calls = message.toolCalls.filter((call) => answered.has(call.id))
    dropped += message.toolCalls.length - calls.length
    if (calls.length === message.toolCalls.length) repaired.push(message)
    else if (calls.length > 0 || message.text !== '') repaired.push({ ...message, toolCalls: calls })
    const unanswered = new Set(calls.map((call) => call.id))
    for (let k = i + 1; k < end; k++) {
      const tool = messages[k] as ToolResponseMessage
      // Set.delete is true once per id: a second response to one call is an orphan too.
      const responses = tool.responses.filter((response) => unanswered.delete(response.id))
      dropped += tool.responses.length - responses.length
      if (responses.length === tool.responses.length) repaired.push(tool)
      else if (responses.length > 0) repaired.push({ ...tool, responses })
    }
    i = end - 1
  }
  return { messages: dropped > 0 ? repaired : [...messages], dropped }
}
