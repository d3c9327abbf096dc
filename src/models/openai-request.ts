import { userPartsOf, type ChatOptions, type Message, type UserMessage } from '../core'
import { isTextFile, textFileText } from './attachment-data'
import { REASONING_CONTENT } from './openai-mapping'
import { isStrictSchema } from './strict-schema'

// Our plain data as a Chat Completions request.

/** `server`: the label of the server the request goes to (it gets back the `reasoning_content` it sent). */
export function toOpenAIMessages(messages: readonly Message[], server?: string): Array<Record<string, unknown>> {
  return messages.flatMap((message): Array<Record<string, unknown>> => {
    switch (message.role) {
      case 'system':
        return [{ role: message.role, content: message.text }]
      case 'user':
        return [{ role: 'user', content: userContent(message) }]
      case 'assistant':
        return [
          {
            role: 'assistant',
            content: message.text === '' && message.toolCalls.length > 0 ? null : message.text,
            ...(message.toolCalls.length > 0
              ? {
                  ...(server && message.metadata?.[REASONING_CONTENT] === server
                    ? { reasoning_content: message.reasoning ?? '' }
                    : {}),
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
  server?: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: options.model ?? model,
    messages: toOpenAIMessages(messages, server),
  }
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
        strict: format.strict ?? isStrictSchema(format.schema),
      },
    }
  } else if (format) {
    body['response_format'] = { type: format.type }
  }
  return { ...body, ...options.providerOptions?.['openai'] }
}

/**
 * A user message with attachments as content parts: images as `image_url` (a URL or data URL), a
 * PDF as a `file` with its bytes, a plain-text file as text. Blobs were read into data URLs before.
 */
export function userContent(message: UserMessage): string | Array<Record<string, unknown>> {
  if (!message.parts) return message.text
  return userPartsOf(message).map((part) => {
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
