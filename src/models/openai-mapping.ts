import {
  partsOf,
  type Message,
  type ToolCall,
  type ChatOptions,
  type ChatResponse,
  type Generation,
  type GenerationMetadata,
  type Usage,
  type UserMessage,
} from '../core'
import { isTextFile, textFileText } from './attachment-data'
import { streamError, type ErrorContext } from './errors'
import { parseProviderError } from './http-error'
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

// Translation between our plain data and the Chat Completions wire format.

export interface OpenAIToolCall {
  id?: string
  type?: 'function'
  index?: number
  function?: { name?: string; arguments?: string | Record<string, unknown> }
}

export function toOpenAIMessages(messages: readonly Message[]): Array<Record<string, unknown>> {
  return messages.flatMap((message): Array<Record<string, unknown>> => {
    switch (message.role) {
      case 'system':
        return [{ role: message.role, content: message.text }]
      case 'user':
        return [{ role: 'user', content: message.parts ? userContent(message) : message.text }]
      case 'assistant':
        return [
          {
            role: 'assistant',
            content: message.text === '' && message.toolCalls.length > 0 ? null : message.text,
            ...(message.toolCalls.length > 0
              ? {
                  tool_calls: message.toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments || '{}' },
                  })),
                }
              : {}),
          },
        ]
      case 'tool':
        return message.responses.map((response) => ({
          role: 'tool',
          tool_call_id: response.id,
          content: response.responseData,
        }))
    }
  })
}

/**
 * A user message with attachments as content parts: images as `image_url` (a URL or data URL), a
 * PDF as a `file` with its bytes, a plain-text file as text. Blobs were read into data URLs before.
 */
function userContent(message: UserMessage): Array<Record<string, unknown>> {
  return partsOf(message).map((part) => {
    switch (part.type) {
      case 'image':
        return { type: 'image_url', image_url: { url: part.image } }
      case 'file':
        if (isTextFile(part)) return { type: 'text', text: textFileText(part) }
        return { type: 'file', file: { filename: part.name ?? 'file.pdf', file_data: part.data } }
      default:
        return { type: 'text', text: part.type === 'text' ? part.text : '' }
    }
  })
}

/** The request body for a prompt's options; `providerOptions.openai` is merged last as an escape hatch. */
export function toOpenAIRequest(
  model: string,
  messages: readonly Message[],
  options: ChatOptions,
  stream: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = { model: options.model ?? model, messages: toOpenAIMessages(messages) }
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } })
  if (options.temperature !== undefined) body['temperature'] = options.temperature
  if (options.topP !== undefined) body['top_p'] = options.topP
  if (options.maxTokens !== undefined) body['max_tokens'] = options.maxTokens
  if (options.seed !== undefined) body['seed'] = options.seed
  if (options.stopSequences?.length) body['stop'] = options.stopSequences
  if (options.tools?.length) {
    body['tools'] = options.tools.map(({ definition }) => ({
      type: 'function',
      function: { name: definition.name, description: definition.description, parameters: definition.inputSchema },
    }))
  }
  const choice = options.toolChoice
  if (choice)
    body['tool_choice'] = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } }
  const format = options.responseFormat
  if (format?.type === 'json_schema') {
    body['response_format'] = {
      type: 'json_schema',
      json_schema: {
        name: format.name ?? 'output',
        schema: format.schema,
        ...(format.strict !== undefined ? { strict: format.strict } : {}),
      },
    }
  } else if (format) {
    body['response_format'] = { type: format.type }
  }
  return { ...body, ...options.providerOptions?.['openai'] }
}

/**
 * Usage in the library's terms: `completionTokens` includes reasoning tokens. xAI counts reasoning
 * outside `completion_tokens` (its total says so), so they are added back there.
 */
export function toUsage(raw: unknown): Usage | undefined {
  if (!isWireObject(raw)) return undefined
  const promptTokens = count(raw['prompt_tokens'])
  if (promptTokens === undefined) return undefined
  const details = isWireObject(raw['completion_tokens_details']) ? raw['completion_tokens_details'] : {}
  const promptDetails = isWireObject(raw['prompt_tokens_details']) ? raw['prompt_tokens_details'] : {}
  const reasoningTokens = count(details['reasoning_tokens'])
  const total = count(raw['total_tokens'])
  let completionTokens = count(raw['completion_tokens']) ?? 0
  if (reasoningTokens && total === promptTokens + completionTokens + reasoningTokens)
    completionTokens += reasoningTokens
  const result: Usage = { promptTokens, completionTokens, totalTokens: total ?? promptTokens + completionTokens }
  if (reasoningTokens !== undefined) result.reasoningTokens = reasoningTokens
  // OpenAI names cached prompt tokens in the details; DeepSeek and Moonshot at the top.
  const cached =
    count(promptDetails['cached_tokens']) ?? count(raw['prompt_cache_hit_tokens']) ?? count(raw['cached_tokens'])
  if (cached !== undefined) result.cacheReadTokens = cached
  return result
}

export function toToolCall(call: OpenAIToolCall, index: number, responseId: string | undefined): ToolCall {
  const name = call.function?.name ?? ''
  const args = call.function?.arguments
  return {
    id: call.id || stableToolCallId(responseId, index, name),
    name,
    arguments: typeof args === 'string' ? args : args ? JSON.stringify(args) : '{}',
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
    return {
      ...(index !== undefined ? { index } : {}),
      ...(id !== undefined ? { id } : {}),
      ...(fn ? { function: { ...(name !== undefined ? { name } : {}), ...(args ? { arguments: args } : {}) } } : {}),
    }
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
  if (value === undefined || value === null) return { text: '', reasoning: '' }
  if (typeof value === 'string') return { text: value, reasoning: '' }
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

/** A refusal is a content filter in the library's words; its text stays in the metadata. */
export function finishMetadata(finishReason: string | undefined, refusal: string): GenerationMetadata {
  if (refusal)
    return { finishReason: 'content_filter', refusal, ...(finishReason ? { providerFinishReason: finishReason } : {}) }
  return finishReason ? { finishReason } : {}
}

export function fromOpenAICompletion(body: unknown, context: ErrorContext): ChatResponse {
  const completion = objectAt(body, 'the body', context)
  if (completion['error'] !== undefined && completion['error'] !== null && completion['choices'] === undefined) {
    const error = parseProviderError(JSON.stringify(completion))
    throw streamError(
      `the answer is an error${error.code ? ` (${error.code})` : ''}: ${error.message ?? 'unknown error'}`,
      context,
      {
        retryable: false,
        ...(error.code ? { code: error.code } : {}),
      },
    )
  }
  const id = firstNonEmpty(undefined, completion['id'])
  const results: Generation[] = optionalArray(completion['choices'], 'choices', context).map((entry, position) => {
    const path = `choices[${position}]`
    const choice = objectAt(entry, path, context)
    const message = optionalObject(choice['message'], `${path}.message`, context) ?? {}
    const { text, reasoning, refusal } = readTextAndReasoning(message, `${path}.message`, context)
    const toolCalls = readToolCalls(message['tool_calls'], `${path}.message.tool_calls`, context).map((call, index) =>
      toToolCall(call, call.index ?? index, id),
    )
    const finishReason = optionalString(choice['finish_reason'], `${path}.finish_reason`, context)
    return {
      output: { role: 'assistant', text, toolCalls, ...(reasoning ? { reasoning } : {}) },
      metadata: finishMetadata(finishReason, refusal),
    }
  })
  const model = firstNonEmpty(undefined, completion['model'])
  const usage = toUsage(completion['usage'])
  return {
    results,
    metadata: { ...(id ? { id } : {}), ...(model ? { model } : {}), ...(usage ? { usage } : {}) },
  }
}
