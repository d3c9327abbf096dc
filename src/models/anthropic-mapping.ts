import {
  isPlainOrder,
  partsOf,
  type AssistantMessage,
  type AssistantPart,
  type Message,
  type ToolCall,
  type ChatOptions,
  type ChatResponse,
  type Usage,
  type UserMessage,
} from '../core'
import { attachmentType, base64Of, isTextFile, textFileText } from './attachment-data'
import type { ErrorContext } from './errors'
import { inBandError } from './http-error'
import { count, firstNonEmpty, isWireObject, objectAt, optionalArray, optionalString } from './wire'

// Translation between our plain data and the Anthropic Messages wire format.

type Block = Record<string, unknown>
interface Turn {
  role: 'user' | 'assistant'
  content: Block[]
}

/** System messages become the `system` text; tool results go in one user turn; same-role turns are merged. */
export function toAnthropicMessages(messages: readonly Message[]): { system: string | undefined; messages: Turn[] } {
  const system: string[] = []
  const turns: Turn[] = []
  const push = (role: Turn['role'], content: Block[]) => {
    if (content.length === 0) return
    const last = turns.at(-1)
    if (last?.role === role) last.content.push(...content)
    else turns.push({ role, content })
  }
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.text)
        break
      case 'user':
        push('user', userBlocks(message))
        break
      case 'assistant':
        push('assistant', assistantBlocks(message))
        break
      case 'tool':
        push(
          'user',
          message.responses.map((response) => ({
            type: 'tool_result',
            tool_use_id: response.id,
            content: response.responseData,
            ...(response.responseData.startsWith('Error:') ? { is_error: true } : {}),
          })),
        )
        break
    }
  }
  // Tool results must come first in a user turn.
  for (const turn of turns) {
    if (turn.role === 'user')
      turn.content.sort((a, b) => Number(b['type'] === 'tool_result') - Number(a['type'] === 'tool_result'))
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: turns }
}

/** Thinking blocks, signed (or redacted), exactly as Anthropic sent them: they go back unchanged. */
export type ThinkingBlock =
  { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string }

/** Where an assistant message keeps the thinking blocks to send back with the tool calls they led to. */
export const THINKING_BLOCKS = 'anthropicThinking'

function thinkingBlocksOf(metadata: Record<string, unknown> | undefined): ThinkingBlock[] {
  const blocks = metadata?.[THINKING_BLOCKS]
  return Array.isArray(blocks) ? blocks.filter(isThinkingBlock) : []
}

function isThinkingBlock(value: unknown): value is ThinkingBlock {
  if (!isWireObject(value)) return false
  if (value['type'] === 'thinking')
    return typeof value['thinking'] === 'string' && typeof value['signature'] === 'string'
  return value['type'] === 'redacted_thinking' && typeof value['data'] === 'string'
}

/** Text, then images (`image`) and files (`document`: a PDF's bytes or URL, a text file's text) in order. */
function userBlocks(message: UserMessage): Block[] {
  if (!message.parts) return message.text ? [{ type: 'text', text: message.text }] : []
  return partsOf(message).flatMap((part): Block[] => {
    switch (part.type) {
      case 'text':
        return part.text ? [{ type: 'text', text: part.text }] : []
      case 'image':
        return [{ type: 'image', source: sourceBlock(part.image as string, attachmentType(part)) }]
      case 'file':
        if (isTextFile(part))
          return [
            {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: textFileText(part) },
              ...(part.name ? { title: part.name } : {}),
            },
          ]
        return [
          {
            type: 'document',
            source: sourceBlock(part.data as string, attachmentType(part)),
            ...(part.name ? { title: part.name } : {}),
          },
        ]
      default:
        return []
    }
  })
}

/** Bytes (a data URL, after Blobs were read) go as base64; anything else is a URL Anthropic fetches. */
function sourceBlock(source: string, mediaType: string | undefined): Block {
  if (!source.startsWith('data:')) return { type: 'url', url: source }
  return { type: 'base64', media_type: mediaType, data: base64Of(source) }
}

/**
 * The signed thinking blocks go back unchanged: the n-th at the place of the n-th reasoning part
 * (in the order the model wrote them), any left over first; then text and tool calls in order.
 */
function assistantBlocks(message: AssistantMessage): Block[] {
  const thinking: Block[] = thinkingBlocksOf(message.metadata).map((block) => ({ ...block }))
  const blocks: Block[] = []
  let next = 0
  for (const part of partsOf(message) as AssistantPart[]) {
    if (part.type === 'reasoning') {
      if (message.parts && next < thinking.length) blocks.push(thinking[next++]!)
    } else if (part.type === 'text') {
      if (part.text) blocks.push({ type: 'text', text: part.text })
    } else blocks.push({ type: 'tool_use', id: part.id, name: part.name, input: parseInput(part.arguments) })
  }
  return [...thinking.slice(next), ...blocks]
}

function parseInput(args: string): unknown {
  if (args.trim() === '') return {}
  try {
    return JSON.parse(args) as unknown
  } catch {
    return {}
  }
}

export function toAnthropicRequest(
  model: string,
  maxTokens: number,
  messages: readonly Message[],
  options: ChatOptions,
  stream: boolean,
): Record<string, unknown> {
  const mapped = toAnthropicMessages(messages)
  const body: Record<string, unknown> = {
    model: options.model ?? model,
    max_tokens: options.maxTokens ?? maxTokens,
    messages: mapped.messages,
  }
  if (mapped.system) body['system'] = mapped.system
  if (stream) body['stream'] = true
  if (options.temperature !== undefined) body['temperature'] = options.temperature
  if (options.topP !== undefined) body['top_p'] = options.topP
  if (options.stopSequences?.length) body['stop_sequences'] = options.stopSequences
  if (options.tools?.length) {
    body['tools'] = options.tools.map(({ definition }) => ({
      name: definition.name,
      description: definition.description,
      input_schema: definition.inputSchema,
    }))
  }
  const choice = options.toolChoice
  if (choice) {
    body['tool_choice'] =
      typeof choice === 'object'
        ? { type: 'tool', name: choice.name }
        : { type: choice === 'required' ? 'any' : choice }
  }
  return { ...body, ...options.providerOptions?.['anthropic'] }
}

/** Anthropic's stop reasons in the words the rest of the library uses; the original stays in metadata. */
export function finishReasonOf(stopReason: string | undefined): string | undefined {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'tool_use':
      return 'tool_calls'
    case 'max_tokens':
      return 'length'
    case 'refusal':
      return 'content_filter'
    default:
      return stopReason
  }
}

export function toUsage(raw: unknown): Usage | undefined {
  if (!isWireObject(raw)) return undefined
  const input = count(raw['input_tokens'])
  if (input === undefined) return undefined
  const cacheRead = count(raw['cache_read_input_tokens'])
  const cacheWrite = count(raw['cache_creation_input_tokens'])
  const promptTokens = input + (cacheRead ?? 0) + (cacheWrite ?? 0)
  const completionTokens = count(raw['output_tokens']) ?? 0
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
  }
}

export function fromAnthropicMessage(body: unknown, context: ErrorContext): ChatResponse {
  const message = objectAt(body, 'the body', context)
  if (message['type'] === 'error') throw inBandError(message['error'], context, 'the answer is an error')
  let text = ''
  let reasoning = ''
  const thinking: ThinkingBlock[] = []
  const toolCalls: ToolCall[] = []
  const order: AssistantPart[] = []
  optionalArray(message['content'], 'content', context).forEach((entry, position) => {
    const path = `content[${position}]`
    const block = objectAt(entry, path, context)
    switch (block['type']) {
      case 'text': {
        const words = optionalString(block['text'], `${path}.text`, context) ?? ''
        text += words
        order.push({ type: 'text', text: words })
        break
      }
      case 'thinking': {
        const words = optionalString(block['thinking'], `${path}.thinking`, context) ?? ''
        reasoning += words
        order.push({ type: 'reasoning', text: words })
        thinking.push({
          type: 'thinking',
          thinking: words,
          signature: optionalString(block['signature'], `${path}.signature`, context) ?? '',
        })
        break
      }
      case 'redacted_thinking':
        thinking.push({ type: 'redacted_thinking', data: optionalString(block['data'], `${path}.data`, context) ?? '' })
        order.push({ type: 'reasoning', text: '' })
        break
      case 'tool_use': {
        const call = {
          id: optionalString(block['id'], `${path}.id`, context) ?? '',
          name: optionalString(block['name'], `${path}.name`, context) ?? '',
          arguments: JSON.stringify(block['input'] ?? {}),
        }
        toolCalls.push(call)
        order.push({ type: 'tool-call', ...call })
        break
      }
    }
  })
  return assembled(
    {
      text,
      reasoning,
      thinking,
      toolCalls,
      order,
      stopReason: optionalString(message['stop_reason'], 'stop_reason', context),
    },
    {
      id: firstNonEmpty(undefined, message['id']),
      model: firstNonEmpty(undefined, message['model']),
      usage: toUsage(message['usage']),
    },
  )
}

/**
 * One generation: reasoning on the message, the signed thinking blocks in its metadata (so they
 * survive in history), the raw stop reason, and a refusal's text kept in the metadata.
 */
export function assembled(
  answer: {
    text: string
    reasoning: string
    thinking: ThinkingBlock[]
    toolCalls: ToolCall[]
    /** The blocks in the order the model wrote them; kept as `parts` when that is not the plain order. */
    order: AssistantPart[]
    stopReason: string | undefined
  },
  response: { id: string | undefined; model: string | undefined; usage: Usage | undefined },
  refusalText = answer.text,
): ChatResponse {
  const finishReason = finishReasonOf(answer.stopReason)
  return {
    results: [
      {
        output: {
          role: 'assistant',
          text: answer.text,
          toolCalls: answer.toolCalls,
          ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
          ...(isPlainOrder(answer.order) ? {} : { parts: answer.order }),
          ...(answer.thinking.length > 0 ? { metadata: { [THINKING_BLOCKS]: answer.thinking } } : {}),
        },
        metadata: {
          ...(finishReason ? { finishReason } : {}),
          ...(answer.stopReason ? { stopReason: answer.stopReason } : {}),
          ...(answer.stopReason === 'refusal' && refusalText ? { refusal: refusalText } : {}),
        },
      },
    ],
    metadata: {
      ...(response.id ? { id: response.id } : {}),
      ...(response.model ? { model: response.model } : {}),
      ...(response.usage ? { usage: response.usage } : {}),
    },
  }
}
