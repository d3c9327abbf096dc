import type { Message, ToolCall, ChatOptions, ChatResponse, Generation, Usage } from '../core'
import { stableToolCallId } from './stable-id'

// Translation between our plain data and the Chat Completions wire format.

export interface OpenAIToolCall {
  id?: string
  type?: 'function'
  index?: number
  function?: { name?: string; arguments?: string | Record<string, unknown> }
}

export interface OpenAIUsage {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number } | null
}

export function toOpenAIMessages(messages: readonly Message[]): Array<Record<string, unknown>> {
  return messages.flatMap((message): Array<Record<string, unknown>> => {
    switch (message.role) {
      case 'system':
      case 'user':
        return [{ role: message.role, content: message.text }]
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

export function toUsage(usage: OpenAIUsage | null | undefined): Usage | undefined {
  if (!usage || typeof usage.prompt_tokens !== 'number') return undefined
  const promptTokens = usage.prompt_tokens
  const completionTokens = usage.completion_tokens ?? 0
  const result: Usage = {
    promptTokens,
    completionTokens,
    totalTokens: usage.total_tokens ?? promptTokens + completionTokens,
  }
  const cached = usage.prompt_tokens_details?.cached_tokens
  if (typeof cached === 'number') result.cacheReadTokens = cached
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

interface OpenAIChoice {
  index?: number
  finish_reason?: string | null
  message?: {
    content?: string | null
    refusal?: string | null
    reasoning?: string | null
    reasoning_content?: string | null
    tool_calls?: OpenAIToolCall[] | null
  }
}

export interface OpenAICompletion {
  id?: string
  model?: string
  choices?: OpenAIChoice[]
  usage?: OpenAIUsage | null
}

export function fromOpenAICompletion(completion: OpenAICompletion): ChatResponse {
  const results: Generation[] = (completion.choices ?? []).map((choice) => {
    const message = choice.message ?? {}
    const toolCalls = (message.tool_calls ?? []).map((call, index) =>
      toToolCall(call, call.index ?? index, completion.id),
    )
    const reasoning = message.reasoning ?? message.reasoning_content
    return {
      output: { role: 'assistant', text: message.content ?? '', toolCalls },
      metadata: {
        ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
        ...(message.refusal ? { refusal: message.refusal } : {}),
        ...(reasoning ? { reasoning } : {}),
      },
    }
  })
  const usage = toUsage(completion.usage)
  return {
    results,
    metadata: {
      ...(completion.id ? { id: completion.id } : {}),
      ...(completion.model ? { model: completion.model } : {}),
      ...(usage ? { usage } : {}),
    },
  }
}
