import type { ChatCompletion, CompletionUsage } from '@mlc-ai/web-llm'
import type { ToolCall, ChatResponse, ChatResponseMetadata, Usage } from '../core'
import { parseReply, stableToolCallId, type ParsedReply } from '../models'
import { splitThinking } from './think'

export interface Speed {
  prefillTokensPerSecond?: number
  decodeTokensPerSecond?: number
  timeToFirstTokenMs?: number
}

/** Usage, and WebLLM's speed figures, in the response metadata. */
export function usageMetadata(
  usage: CompletionUsage | undefined,
  model: string,
  measuredFirstTokenMs?: number,
): ChatResponseMetadata {
  const metadata: ChatResponseMetadata = { model }
  if (!usage) return metadata
  const counted: Usage = {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
  }
  const extra = usage.extra as Partial<CompletionUsage['extra']> | undefined
  const speed: Speed = {}
  if (extra?.prefill_tokens_per_s !== undefined) speed.prefillTokensPerSecond = extra.prefill_tokens_per_s
  if (extra?.decode_tokens_per_s !== undefined) speed.decodeTokensPerSecond = extra.decode_tokens_per_s
  const firstToken =
    measuredFirstTokenMs ??
    (extra?.time_to_first_token_s !== undefined ? extra.time_to_first_token_s * 1000 : undefined)
  if (firstToken !== undefined) speed.timeToFirstTokenMs = firstToken
  return { ...metadata, usage: counted, speed }
}

/** Native tool calls come without ids; they get stable ones. */
export function nativeToolCalls(
  calls: ReadonlyArray<{ id?: string; function?: { name?: string; arguments?: string } }> | undefined,
  salt: string,
): ToolCall[] {
  return (calls ?? []).map((call, index) => {
    const name = call.function?.name ?? ''
    const args = call.function?.arguments ?? '{}'
    return { id: call.id || stableToolCallId(salt, index, name, args), name, arguments: args }
  })
}

export function fromCompletion(
  completion: ChatCompletion,
  model: string,
  constrained: boolean,
  salt: string,
): ChatResponse {
  const choice = completion.choices[0]
  const { text: content, reasoning } = splitThinking(choice?.message.content ?? '')
  let text = content
  let toolCalls = nativeToolCalls(choice?.message.tool_calls, salt)
  if (constrained) {
    const reply: ParsedReply = parseReply(content, salt)
    text = reply.kind === 'answer' ? reply.text : ''
    toolCalls = reply.kind === 'tool-calls' ? reply.toolCalls : []
  }
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : (choice?.finish_reason ?? 'stop')
  return {
    results: [
      {
        output: { role: 'assistant', text, toolCalls, ...(reasoning ? { reasoning } : {}) },
        metadata: { finishReason },
      },
    ],
    metadata: { ...(completion.id ? { id: completion.id } : {}), ...usageMetadata(completion.usage, model) },
  }
}
