import { isPart, type AssistantPart, type UserPart } from './parts'

/** A tool call requested by the model. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string
  name: string
  arguments: string
}

/**
 * Progress of a tool call while the model generates it, on stream chunks of a request that asked
 * for it (`ChatOptions.toolCallDeltas`). The first delta of a call starts it; the whole call still
 * arrives once, in `toolCalls`, at the end. `index` is the call's place among the message's calls.
 */
export interface ToolCallDelta {
  index: number
  id: string
  name: string
  argumentsDelta: string
}

/** The answer to one tool call, matched to it by `id`. */
export interface ToolResponse {
  id: string
  name: string
  responseData: string
}

export type Metadata = Record<string, unknown>

export interface SystemMessage {
  role: 'system'
  text: string
  metadata?: Metadata
}
export interface UserMessage {
  role: 'user'
  /** The text of the message; with `parts`, the text of its text parts. */
  text: string
  /** Text, images and files in order; absent when the message is only `text`. See `partsOf`. */
  parts?: UserPart[]
  metadata?: Metadata
}
export interface AssistantMessage {
  role: 'assistant'
  text: string
  toolCalls: ToolCall[]
  /** What the model thought before answering (reasoning, thinking); never part of `text`. In a stream chunk, a delta. */
  reasoning?: string
  /**
   * Reasoning, text and tool calls in the order the model produced them, when that order is not
   * simply reasoning, text, tool calls (then it is absent). `text`, `toolCalls` and `reasoning`
   * stay the whole of each; see `partsOf`.
   */
  parts?: AssistantPart[]
  /** On a stream chunk only: progress of the tool calls being generated (see `ToolCallDelta`). */
  toolCallDeltas?: ToolCallDelta[]
  metadata?: Metadata
}
export interface ToolResponseMessage {
  role: 'tool'
  responses: ToolResponse[]
  metadata?: Metadata
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResponseMessage

export function systemMessage(text: string): SystemMessage {
  return { role: 'system', text }
}

export function userMessage(text: string): UserMessage {
  return { role: 'user', text }
}

export function assistantMessage(text: string, toolCalls: ToolCall[] = []): AssistantMessage {
  return { role: 'assistant', text, toolCalls }
}

export function toolResponseMessage(responses: ToolResponse[]): ToolResponseMessage {
  return { role: 'tool', responses }
}

/** The messages with `text` on a new line at the end of the last user message (or as a new one). */
export function appendToLastUserMessage(messages: readonly Message[], text: string): Message[] {
  const index = messages.findLastIndex((message) => message.role === 'user')
  if (index < 0) return [...messages, { role: 'user', text }]
  const user = messages[index] as UserMessage
  return messages.with(index, { ...user, text: `${user.text}\n${text}` })
}

/** Whether an untrusted value is a well-formed message (stored or imported data). */
export function isMessage(value: unknown): value is Message {
  if (value === null || typeof value !== 'object') return false
  const message = value as Record<string, unknown>
  const isString = (field: unknown) => typeof field === 'string'
  switch (message['role']) {
    case 'system':
      return isString(message['text'])
    case 'user':
      return isString(message['text']) && partsAreValid(message['parts'], 'user')
    case 'assistant':
      return (
        isString(message['text']) &&
        (message['reasoning'] === undefined || isString(message['reasoning'])) &&
        partsAreValid(message['parts'], 'assistant') &&
        Array.isArray(message['toolCalls']) &&
        message['toolCalls'].every(
          (call: { id?: unknown; name?: unknown; arguments?: unknown } | null) =>
            !!call && isString(call.id) && isString(call.name) && isString(call.arguments),
        )
      )
    case 'tool':
      return (
        Array.isArray(message['responses']) &&
        message['responses'].every(
          (response: { id?: unknown; name?: unknown; responseData?: unknown } | null) =>
            !!response && isString(response.id) && isString(response.name) && isString(response.responseData),
        )
      )
    default:
      return false
  }
}

function partsAreValid(parts: unknown, role: 'user' | 'assistant'): boolean {
  return parts === undefined || (Array.isArray(parts) && parts.every((part) => isPart(part, role)))
}
