import { stoppedShort, type ToolCall, type ChatResponse, type Generation, type Usage } from '../core'
import type { ErrorContext } from './errors'
import { inBandError } from './http-error'
import { stableToolCallId } from './stable-id'
import {
  count,
  firstNonEmpty,
  invalidResponse,
  isWireObject,
  objectAt,
  optionalArray,
  optionalIndex,
  optionalObject,
  optionalString,
  type WireObject,
} from './wire'

// Chat Completions responses in our plain data (the request side is ./openai-request). Loaded with
// the first response, so an app pays for it only once a request is on its way.

/** A tool call or a fragment of one, as a message or delta holds it (its function's name and arguments flattened). */
export interface OpenAIToolCall {
  id?: string | undefined
  index?: number | undefined
  name?: string | undefined
  arguments?: string | WireObject | null | undefined
}

/**
 * Usage in the library's terms: `completionTokens` includes reasoning tokens. xAI counts reasoning
 * outside `completion_tokens` (its total says so), so they are added back there.
 */
export function toUsage(raw: unknown): Usage | undefined {
  if (!isWireObject(raw)) return undefined
  const promptTokens = count(raw['prompt_tokens'])
  if (promptTokens === undefined) return undefined
  // A field of another type than an object holds none of these counts.
  const details = raw['completion_tokens_details'] as WireObject | null | undefined
  const promptDetails = raw['prompt_tokens_details'] as WireObject | null | undefined
  const reasoningTokens = count(details?.['reasoning_tokens'])
  const total = count(raw['total_tokens'])
  let completionTokens = count(raw['completion_tokens']) ?? 0
  if (reasoningTokens && total === promptTokens + completionTokens + reasoningTokens)
    completionTokens += reasoningTokens
  const result: Usage = { promptTokens, completionTokens, totalTokens: total ?? promptTokens + completionTokens }
  if (reasoningTokens !== undefined) result.reasoningTokens = reasoningTokens
  // OpenAI names cached prompt tokens in the details; DeepSeek and Moonshot at the top.
  const cached =
    count(promptDetails?.['cached_tokens']) ?? count(raw['prompt_cache_hit_tokens']) ?? count(raw['cached_tokens'])
  if (cached !== undefined) result.cacheReadTokens = cached
  return result
}

/** `blank`: the arguments of a call that has none: `{}` when the answer is complete, '' (as they came) when it was cut short. */
export function toToolCall(
  call: OpenAIToolCall,
  index: number,
  responseId: string | undefined,
  blank: string,
): ToolCall {
  const name = call.name ?? ''
  const args = call.arguments
  return {
    id: call.id || stableToolCallId(responseId, index, name),
    name,
    arguments: typeof args === 'string' ? args || blank : args ? JSON.stringify(args) : blank,
  }
}

/** The tool-call entries of a message or delta, checked field by field. */
export function readToolCalls(value: unknown, path: string, context: ErrorContext): OpenAIToolCall[] {
  return optionalArray(value, path, context).map((entry, position) => {
    const at = `${path}[${position}]`
    const call = objectAt(entry, at, context)
    const fn = optionalObject(call['function'], `${at}.function`, context)
    const args = fn?.['arguments']
    if (args !== undefined && args !== null && typeof args !== 'string' && !isWireObject(args))
      throw invalidResponse(context, `${at}.function.arguments must be a JSON string`, args)
    const index = optionalIndex(call['index'], `${at}.index`, context)
    const id = optionalString(call['id'], `${at}.id`, context)
    const name = optionalString(fn?.['name'], `${at}.function.name`, context)
    return { index, id, name, arguments: args }
  })
}

/**
 * Text and reasoning of a message or delta. `content` is a string, or (Mistral's magistral) an
 * array of `text` and `thinking` parts; reasoning comes as `reasoning_content` (DeepSeek, vLLM),
 * `reasoning` (Groq, OpenRouter, Ollama) or `thinking`.
 */
export function readTextAndReasoning(
  message: WireObject,
  path: string,
  context: ErrorContext,
): { text: string; reasoning: string; refusal: string } {
  const parts = readContent(message['content'], `${path}.content`, context)
  const reasoningFields = ['reasoning_content', 'reasoning', 'thinking'].map(
    (field) => optionalString(message[field], `${path}.${field}`, context) ?? '',
  )
  const refusal = optionalString(message['refusal'], `${path}.refusal`, context) ?? ''
  return { text: parts.text, reasoning: parts.reasoning + (reasoningFields.find(Boolean) ?? ''), refusal }
}

function readContent(value: unknown, path: string, context: ErrorContext): { text: string; reasoning: string } {
  if (value === undefined || value === null || typeof value === 'string') return { text: value ?? '', reasoning: '' }
  if (!Array.isArray(value))
    throw invalidResponse(context, `${path} must be a string or an array of content parts`, value)
  let text = ''
  let reasoning = ''
  value.forEach((entry, position) => {
    const at = `${path}[${position}]`
    const part = objectAt(entry, at, context)
    if (part['type'] === 'text') text += optionalString(part['text'], `${at}.text`, context) ?? ''
    else if (part['type'] === 'thinking') {
      const thinking = part['thinking']
      reasoning += typeof thinking === 'string' ? thinking : readContent(thinking, `${at}.thinking`, context).text
    }
  })
  return { text, reasoning }
}

/** Where an assistant message with tool calls notes the server that sent its reasoning as `reasoning_content`. */
export const REASONING_CONTENT = 'openaiReasoningContent'

/**
 * One answer of a response, complete or streamed. DeepSeek (thinking mode) answers 400 unless the
 * reasoning of a message with tool calls comes back as `reasoning_content`; servers that never sent
 * one may refuse it, so a message notes (`sentReasoningContent`) the one server it goes back to. A
 * refusal is a content filter in the library's words; its text stays in the metadata.
 */
export function toGeneration(
  text: string,
  reasoning: string,
  toolCalls: ToolCall[],
  sentReasoningContent: boolean,
  finishReason: string | undefined,
  refusal: string,
  context: ErrorContext,
): Generation {
  return {
    output: {
      role: 'assistant',
      text,
      toolCalls,
      ...(reasoning ? { reasoning } : {}),
      ...(sentReasoningContent && toolCalls.length > 0 ? { metadata: { [REASONING_CONTENT]: context.label } } : {}),
    },
    metadata: refusal
      ? { finishReason: 'content_filter', refusal, ...(finishReason ? { providerFinishReason: finishReason } : {}) }
      : finishReason
        ? { finishReason }
        : {},
  }
}

/** A response of these answers, with the id, model and usage it has. */
export function toChatResponse(
  results: Generation[],
  id: string | undefined,
  model: string | undefined,
  usage: Usage | undefined,
): ChatResponse {
  return { results, metadata: { ...(id ? { id } : {}), ...(model ? { model } : {}), ...(usage ? { usage } : {}) } }
}

export function fromOpenAICompletion(body: unknown, context: ErrorContext): ChatResponse {
  const completion = objectAt(body, 'the body', context)
  if (completion['error'] !== undefined && completion['error'] !== null && completion['choices'] === undefined)
    throw inBandError(completion['error'], context, 'the answer is an error')
  const id = firstNonEmpty(undefined, completion['id'])
  const results = optionalArray(completion['choices'], 'choices', context).map((entry, position) => {
    const path = `choices[${position}]`
    const choice = objectAt(entry, path, context)
    const message = optionalObject(choice['message'], `${path}.message`, context) ?? {}
    const { text, reasoning, refusal } = readTextAndReasoning(message, `${path}.message`, context)
    const finishReason = optionalString(choice['finish_reason'], `${path}.finish_reason`, context)
    const blank = stoppedShort(finishReason) ? '' : '{}'
    const toolCalls = readToolCalls(message['tool_calls'], `${path}.message.tool_calls`, context).map((call, index) =>
      toToolCall(call, call.index ?? index, id, blank),
    )
    const sent = typeof message['reasoning_content'] === 'string'
    return toGeneration(text, reasoning, toolCalls, sent, finishReason, refusal, context)
  })
  return toChatResponse(results, id, firstNonEmpty(undefined, completion['model']), toUsage(completion['usage']))
}
