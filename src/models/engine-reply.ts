import type { ChatResponse, ChatResponseMetadata, ToolCall } from '../core'
import { parseReply, type AnswerStreamer } from './constrained-json'

/** What a finished reply of an in-page engine holds besides the text already streamed. */
export interface ReplyEnd {
  toolCalls: ToolCall[]
  /** The answer of a constrained reply whose text did not stream as it came ('' when it did). */
  text: string
}

/**
 * The end of a constrained (JSON envelope) reply: its tool calls, or the answer text still to send.
 * A reply that is not the envelope (most often cut off by the token limit) throws `invalid(error)`.
 */
export function constrainedEnd(answer: AnswerStreamer, salt: string, invalid: (error: SyntaxError) => Error): ReplyEnd {
  let reply
  try {
    reply = parseReply(answer.raw, salt)
  } catch (error) {
    throw invalid(error as SyntaxError)
  }
  if (reply.kind === 'tool-calls') return { toolCalls: reply.toolCalls, text: '' }
  return { toolCalls: [], text: answer.streaming ? '' : reply.text }
}

export function textChunk(text: string): ChatResponse {
  return { results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }], metadata: {} }
}

export function reasoningChunk(reasoning: string): ChatResponse {
  return {
    results: [{ output: { role: 'assistant', text: '', toolCalls: [], reasoning }, metadata: {} }],
    metadata: {},
  }
}

/** The last chunk of a streamed reply: its tool calls, the finish reason (`tool_calls` when it calls) and usage. */
export function finishChunk(
  toolCalls: ToolCall[],
  finishReason: string | undefined,
  metadata: ChatResponseMetadata,
): ChatResponse {
  return {
    results: [
      {
        output: { role: 'assistant', text: '', toolCalls },
        metadata: { finishReason: toolCalls.length > 0 ? 'tool_calls' : (finishReason ?? 'stop') },
      },
    ],
    metadata,
  }
}
