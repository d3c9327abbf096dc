import type { ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionRequestBase } from '@mlc-ai/web-llm'
import {
  partsOf,
  type AssistantMessage,
  type Message,
  type ToolResponseMessage,
  type Prompt,
  type JsonSchema,
  type UserMessage,
} from '../core'
import { engineSampling, isTextFile, replySchema, textFileText, toolInstructions } from '../models'
import type { ToolStrategy } from './engine'

/**
 * The WebLLM request for a prompt: fresh message objects with string content (WebLLM changes the
 * array in place and refuses null content), tools the way the strategy needs them.
 */
export function toWebLLMRequest(prompt: Prompt, strategy: ToolStrategy): ChatCompletionRequestBase {
  const { options } = prompt
  const tools = (options.tools ?? []).map((tool) => tool.definition)
  const request: ChatCompletionRequestBase = {
    messages: [],
    ...(engineSampling(options, 'webllm') as Partial<ChatCompletionRequestBase>),
  }
  const format = options.responseFormat
  const answerSchema: JsonSchema | undefined = format?.type === 'json_schema' ? format.schema : undefined
  if (tools.length > 0 && strategy === 'native') {
    request.messages = nativeMessages(prompt.messages)
    request.tools = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }))
  } else if (tools.length > 0) {
    request.messages = constrainedMessages(prompt.messages, toolInstructions(tools))
    // WebLLM's grammar takes the schema as a JSON string; an object there throws.
    request.response_format = { type: 'json_object', schema: JSON.stringify(replySchema(tools, answerSchema)) }
  } else {
    request.messages = plainMessages(prompt.messages)
    if (answerSchema) request.response_format = { type: 'json_object', schema: JSON.stringify(answerSchema) }
    else if (format?.type === 'json_object') request.response_format = { type: 'json_object' }
  }
  return request
}

function plainMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  return merged(
    messages.map((message): ChatCompletionMessageParam => {
      switch (message.role) {
        case 'system':
          return { role: 'system', content: message.text }
        case 'user':
          return userTurn(message)
        case 'assistant':
          return { role: 'assistant', content: message.text }
        case 'tool':
          return { role: 'user', content: toolResultsText(message.responses) }
      }
    }),
  )
}

/**
 * A user turn: its text, or (with images) one text part and `image_url` parts, the shape WebLLM's
 * vision models take (at most one text part; the model checked before that it reads images). A
 * plain-text file is read into the text.
 */
function userTurn(message: UserMessage): ChatCompletionMessageParam {
  if (!message.parts) return { role: 'user', content: message.text }
  const texts: string[] = []
  const images: ChatCompletionContentPart[] = []
  for (const part of partsOf(message)) {
    if (part.type === 'image') images.push({ type: 'image_url', image_url: { url: part.image as string } })
    else if (part.type === 'file' && isTextFile(part)) texts.push(textFileText(part))
    else if (part.type === 'text' && part.text) texts.push(part.text)
  }
  const text = texts.join('\n\n')
  return images.length === 0
    ? { role: 'user', content: text }
    : { role: 'user', content: [{ type: 'text', text }, ...images] }
}

/** The system text in front of a user turn, whether its content is a string or parts (whose one text part is first). */
function withSystem(system: string, turn: ChatCompletionMessageParam): ChatCompletionMessageParam {
  if (typeof turn.content === 'string') return { role: 'user', content: `${system}\n\n${turn.content}` }
  const [text, ...images] = turn.content as ChatCompletionContentPart[]
  const joined = text?.type === 'text' && text.text ? `${system}\n\n${text.text}` : system
  return { role: 'user', content: [{ type: 'text', text: joined }, ...images] }
}

/** Function-calling models take no custom system prompt: its text goes before the first user message. */
function nativeMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  const { system, rest } = turns(messages, (message) => {
    if (message.role === 'tool')
      return message.responses.map((response) => ({
        role: 'tool' as const,
        content: response.responseData,
        tool_call_id: response.id,
      }))
    return [
      {
        role: 'assistant',
        content: message.text,
        ...(message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      },
    ]
  })
  const firstUser = rest.findIndex((message) => message.role === 'user')
  if (system.length > 0 && firstUser >= 0) rest[firstUser] = withSystem(system.join('\n\n'), rest[firstUser]!)
  return rest
}

/** The model sees its own earlier replies in the JSON shape it must use, and tool results as a user turn. */
function constrainedMessages(messages: readonly Message[], instructions: string): ChatCompletionMessageParam[] {
  const { system, rest } = turns(messages, (message) => {
    if (message.role === 'tool') return [{ role: 'user', content: toolResultsText(message.responses) }]
    const calls = message.toolCalls.map((call) => ({ name: call.name, arguments: parseArguments(call.arguments) }))
    return [
      {
        role: 'assistant',
        content: JSON.stringify(calls.length > 0 ? { tool_calls: calls } : { answer: message.text }),
      },
    ]
  })
  return merged([{ role: 'system', content: [...system, instructions].join('\n\n') }, ...rest])
}

/** The system texts apart; user messages as user turns, the model's and the tools' as `turnsOf` writes them. */
function turns(
  messages: readonly Message[],
  turnsOf: (message: AssistantMessage | ToolResponseMessage) => ChatCompletionMessageParam[],
): { system: string[]; rest: ChatCompletionMessageParam[] } {
  const system: string[] = []
  const rest = messages.flatMap((message): ChatCompletionMessageParam[] => {
    if (message.role === 'system') {
      system.push(message.text)
      return []
    }
    return message.role === 'user' ? [userTurn(message)] : turnsOf(message)
  })
  return { system, rest }
}

function toolResultsText(responses: ReadonlyArray<{ id: string; name: string; responseData: string }>): string {
  return `Tool results:\n${responses.map((response) => `- ${response.name} (${response.id}): ${response.responseData}`).join('\n')}`
}

/** Chat templates expect turns to alternate: consecutive user messages become one. */
function merged(messages: ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = []
  for (const message of messages) {
    const last = out.at(-1)
    if (
      last?.role === 'user' &&
      message.role === 'user' &&
      typeof last.content === 'string' &&
      typeof message.content === 'string'
    ) {
      out[out.length - 1] = { role: 'user', content: `${last.content}\n\n${message.content}` }
    } else out.push(message)
  }
  return out
}

function parseArguments(args: string): unknown {
  try {
    return JSON.parse(args || '{}') as unknown
  } catch {
    return args
  }
}
