import type { AssistantMessage, Message, Metadata, ToolCall, UserMessage } from './messages'
import type { AssistantPart, AttachmentPart, MessagePart, UserPart } from './parts'

/**
 * The parts of any message, in order. A message without `parts` has the plain ones (system and user:
 * its text; assistant: reasoning, text, tool calls; tool: one result per response).
 *
 * `text`, `reasoning` and `toolCalls` are the truth about a message's content; `parts` adds the
 * order and the attachments. So an advisor that changes only `text` (appending format
 * instructions) or a tool call's arguments (an approval edit) is honoured: stale text parts give
 * way to the current text, edited calls replace theirs, calls no longer there are dropped.
 */
export function partsOf(message: Message): MessagePart[] {
  switch (message.role) {
    case 'system':
      return message.text ? [{ type: 'text', text: message.text }] : []
    case 'user':
      return userPartsOf(message)
    case 'assistant':
      return assistantParts(message)
    case 'tool':
      return message.responses.map((response) => ({ type: 'tool-result', ...response }))
  }
}

/** The images and files of a message, in order. */
export function attachmentsOf(message: Message): AttachmentPart[] {
  if (message.role !== 'user' || !message.parts) return []
  return message.parts.filter((part): part is AttachmentPart => part.type === 'image' || part.type === 'file')
}

/** A user message made of text, images and files in order; `parts` is kept when there is more than text. */
export function userMessageOf(parts: readonly UserPart[], metadata?: Metadata): UserMessage {
  const text = textOfParts(parts)
  const plain = parts.every((part) => part.type === 'text') && parts.length <= 1
  return {
    role: 'user',
    text,
    ...(plain ? {} : { parts: parts.map((part) => ({ ...part })) }),
    ...(metadata ? { metadata } : {}),
  }
}

/**
 * An assistant message made of parts in order: text, reasoning and tool calls are joined into the
 * plain fields, and `parts` is kept only when the order says more than they do.
 */
export function assistantMessageOf(parts: readonly AssistantPart[], metadata?: Metadata): AssistantMessage {
  let text = ''
  let reasoning = ''
  const toolCalls: ToolCall[] = []
  for (const part of parts) {
    if (part.type === 'text') text += part.text
    else if (part.type === 'reasoning') reasoning += part.text
    else toolCalls.push({ id: part.id, name: part.name, arguments: part.arguments })
  }
  return {
    role: 'assistant',
    text,
    toolCalls,
    ...(reasoning ? { reasoning } : {}),
    ...(isPlainOrder(parts) ? {} : { parts: parts.map((part) => ({ ...part })) }),
    ...(metadata ? { metadata } : {}),
  }
}

/** Whether parts are at most one reasoning, then at most one text, then tool calls: what the plain fields say. */
export function isPlainOrder(parts: readonly AssistantPart[]): boolean {
  const rank = { reasoning: 0, text: 1, 'tool-call': 2 } as const
  let last = -1
  for (const part of parts) {
    const current = rank[part.type]
    if (current < last || (current === last && current < 2)) return false
    last = current
  }
  return true
}

/** A user message's parts, as `partsOf` gives them: a request mapping that reads no other message's parts needs no more. */
export function userPartsOf(message: UserMessage): UserPart[] {
  if (!message.parts) return message.text ? [{ type: 'text', text: message.text }] : []
  return withCurrentText(message.parts, 'text', message.text) as UserPart[]
}

function assistantParts(message: AssistantMessage): AssistantPart[] {
  const reasoning = message.reasoning ?? ''
  if (!message.parts) {
    const plain: AssistantPart[] = []
    if (reasoning) plain.push({ type: 'reasoning', text: reasoning })
    if (message.text) plain.push({ type: 'text', text: message.text })
    for (const call of message.toolCalls) plain.push({ type: 'tool-call', ...call })
    return plain
  }
  const calls = new Map(message.toolCalls.map((call) => [call.id, call]))
  const parts: AssistantPart[] = []
  for (const part of message.parts) {
    if (part.type !== 'tool-call') parts.push(part)
    else {
      const call = calls.get(part.id)
      if (!call) continue
      calls.delete(part.id)
      parts.push({ type: 'tool-call', ...call })
    }
  }
  for (const call of calls.values()) parts.push({ type: 'tool-call', ...call })
  const withText = withCurrentText(parts, 'text', message.text) as AssistantPart[]
  return withCurrentText(withText, 'reasoning', reasoning) as AssistantPart[]
}

/**
 * The parts with the text parts of one kind agreeing with `current`: kept when they already spell it,
 * extended when `current` only adds to them, else replaced by one part where the first one was.
 */
function withCurrentText(parts: readonly MessagePart[], kind: 'text' | 'reasoning', current: string): MessagePart[] {
  let joined = ''
  let first = -1
  let lastIndex = -1
  parts.forEach((part, index) => {
    if (part.type !== kind) return
    joined += part.text
    if (first < 0) first = index
    lastIndex = index
  })
  if (joined === current) return [...parts]
  const out = [...parts]
  if (joined !== '' && current.startsWith(joined)) {
    out.splice(lastIndex + 1, 0, { type: kind, text: current.slice(joined.length) })
    return out
  }
  const rest = out.filter((part) => part.type !== kind)
  if (!current) return rest
  const at = first >= 0 ? out.slice(0, first).filter((part) => part.type !== kind).length : defaultSlot(rest, kind)
  rest.splice(at, 0, { type: kind, text: current })
  return rest
}

/** Where a text or reasoning part goes when there was none: reasoning first, text after it and before tool calls. */
function defaultSlot(parts: readonly MessagePart[], kind: 'text' | 'reasoning'): number {
  if (kind === 'reasoning') return 0
  const call = parts.findIndex((part) => part.type === 'tool-call')
  return call >= 0 ? call : parts.findLastIndex((part) => part.type === 'reasoning') + 1
}

/** The text parts of a list, joined. */
export function textOfParts(parts: readonly MessagePart[]): string {
  let text = ''
  for (const part of parts) if (part.type === 'text') text += part.text
  return text
}
