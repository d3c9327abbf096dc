import {
  isPlainOrder,
  partsOf,
  type AssistantPart,
  type ChatOptions,
  type ChatResponse,
  type GenerationMetadata,
  type Message,
  type ToolCall,
  type Usage,
  type UserMessage,
} from '../core'
import { isTextFile, textFileText } from './attachment-data'
import type { ErrorContext } from './errors'
import { inBandError } from './http-error'
import { stableToolCallId } from './stable-id'
import {
  count,
  firstNonEmpty,
  isWireObject,
  objectAt,
  optionalArray,
  optionalObject,
  optionalString,
  type WireObject,
} from './wire'
import { isStrictSchema } from './strict-schema'

// Translation between our plain data and the OpenAI Responses API wire format.

/**
 * Where an assistant message keeps its output items in the order the model produced them:
 * reasoning items whole (they go back unchanged), messages and function calls by id, so the next
 * round can send reasoning with the items that must follow it.
 */
export const RESPONSES_ITEMS = 'openaiResponsesItems'

export type ReplayItem =
  | { type: 'reasoning'; item: WireObject }
  | { type: 'message'; id: string }
  | { type: 'function_call'; id: string; callId: string }

function replayItemsOf(metadata: Record<string, unknown> | undefined): ReplayItem[] {
  const items = metadata?.[RESPONSES_ITEMS]
  return Array.isArray(items) ? items.filter(isReplayItem) : []
}

function isReplayItem(value: unknown): value is ReplayItem {
  if (!isWireObject(value)) return false
  if (value['type'] === 'reasoning') return isWireObject(value['item'])
  if (value['type'] === 'message') return typeof value['id'] === 'string'
  return value['type'] === 'function_call' && typeof value['id'] === 'string' && typeof value['callId'] === 'string'
}

function functionCall(call: ToolCall, id?: string): WireObject {
  return {
    type: 'function_call',
    ...(id ? { id } : {}),
    call_id: call.id,
    name: call.name,
    arguments: call.arguments || '{}',
  }
}

/** An assistant message as input items: its recorded items in order when it has them, else text and calls. */
function assistantItems(message: Extract<Message, { role: 'assistant' }>): WireObject[] {
  const items: WireObject[] = []
  const sent = new Set<string>()
  let textSent = false
  for (const replay of replayItemsOf(message.metadata)) {
    if (replay.type === 'reasoning') items.push({ ...replay.item })
    else if (replay.type === 'message' && !textSent && message.text) {
      textSent = true
      const content = [{ type: 'output_text', text: message.text, annotations: [] }]
      items.push({ type: 'message', role: 'assistant', id: replay.id, status: 'completed', content })
    } else if (replay.type === 'function_call') {
      const call = message.toolCalls.find((candidate) => candidate.id === replay.callId)
      if (call && !sent.has(call.id)) {
        sent.add(call.id)
        items.push(functionCall(call, replay.id))
      }
    }
  }
  if (!textSent && !message.parts && message.text) items.push({ role: 'assistant', content: message.text })
  // Without recorded items the parts give the order: text between calls stays between them.
  for (const part of partsOf(message) as AssistantPart[]) {
    if (part.type === 'tool-call' && !sent.has(part.id)) items.push(functionCall(part))
    else if (part.type === 'text' && !textSent && message.parts && part.text)
      items.push({ role: 'assistant', content: part.text })
  }
  return items
}

/** A user message with attachments: `input_text`, `input_image` (URL or data URL), `input_file` (a PDF's bytes). */
function userContent(message: UserMessage): WireObject[] {
  return partsOf(message).map((part) => {
    switch (part.type) {
      case 'image':
        return { type: 'input_image', image_url: part.image }
      case 'file':
        if (isTextFile(part)) return { type: 'input_text', text: textFileText(part) }
        return { type: 'input_file', filename: part.name ?? 'file.pdf', file_data: part.data }
      default:
        return { type: 'input_text', text: part.type === 'text' ? part.text : '' }
    }
  })
}

export function toResponsesInput(messages: readonly Message[]): WireObject[] {
  return messages.flatMap((message): WireObject[] => {
    switch (message.role) {
      case 'system':
        return [{ role: message.role, content: message.text }]
      case 'user':
        return [{ role: 'user', content: message.parts ? userContent(message) : message.text }]
      case 'assistant':
        return assistantItems(message)
      case 'tool':
        return message.responses.map((response) => ({
          type: 'function_call_output',
          call_id: response.id,
          output: response.responseData,
        }))
    }
  })
}

/**
 * The request body. The Responses API has no stop sequences and no seed, so those options are not
 * sent; `providerOptions['openai-responses']` is merged last (e.g. `reasoning: { effort, summary }`).
 */
export function toResponsesRequest(
  model: string,
  messages: readonly Message[],
  options: ChatOptions,
  stream: boolean,
): WireObject {
  const body: WireObject = { model: options.model ?? model, input: toResponsesInput(messages) }
  if (stream) body['stream'] = true
  if (options.temperature !== undefined) body['temperature'] = options.temperature
  if (options.topP !== undefined) body['top_p'] = options.topP
  if (options.maxTokens !== undefined) body['max_output_tokens'] = options.maxTokens
  if (options.tools?.length) {
    body['tools'] = options.tools.map(({ definition }) => ({
      type: 'function',
      name: definition.name,
      description: definition.description,
      parameters: definition.inputSchema,
      strict: false,
    }))
  }
  const choice = options.toolChoice
  if (choice) body['tool_choice'] = typeof choice === 'string' ? choice : { type: 'function', name: choice.name }
  const format = options.responseFormat
  if (format?.type === 'json_schema') {
    body['text'] = {
      format: {
        type: 'json_schema',
        name: format.name ?? 'output',
        schema: format.schema,
        strict: format.strict ?? isStrictSchema(format.schema),
      },
    }
  } else if (format) {
    body['text'] = { format: { type: format.type } }
  }
  return { ...body, ...options.providerOptions?.['openai-responses'] }
}

/** Output tokens include reasoning tokens in this API, which is the library's own convention. */
export function toResponsesUsage(raw: unknown): Usage | undefined {
  if (!isWireObject(raw)) return undefined
  const promptTokens = count(raw['input_tokens'])
  if (promptTokens === undefined) return undefined
  const completionTokens = count(raw['output_tokens']) ?? 0
  const input = isWireObject(raw['input_tokens_details']) ? raw['input_tokens_details'] : {}
  const output = isWireObject(raw['output_tokens_details']) ? raw['output_tokens_details'] : {}
  const reasoningTokens = count(output['reasoning_tokens'])
  const cached = count(input['cached_tokens'])
  return {
    promptTokens,
    completionTokens,
    totalTokens: count(raw['total_tokens']) ?? promptTokens + completionTokens,
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
    ...(cached !== undefined ? { cacheReadTokens: cached } : {}),
  }
}

/** The reasoning words of a reasoning item: its summary parts, or (open-weight servers) its reasoning text. */
export function reasoningTextOf(item: WireObject, path: string, context: ErrorContext): string {
  const parts = [
    ...optionalArray(item['summary'], `${path}.summary`, context),
    ...optionalArray(item['content'], `${path}.content`, context),
  ]
  return parts
    .map((part, index) =>
      optionalString(objectAt(part, `${path} part ${index}`, context)['text'], `${path}.text`, context),
    )
    .filter(Boolean)
    .join('\n\n')
}

/** `blank`: the arguments of a call that has none: `{}` when the answer is complete, '' (as they came) when it was cut short. */
export function toolCallOf(
  item: WireObject,
  path: string,
  context: ErrorContext,
  responseId: string | undefined,
  index: number,
  blank: string,
): ToolCall {
  const name = optionalString(item['name'], `${path}.name`, context) ?? ''
  const callId = optionalString(item['call_id'], `${path}.call_id`, context)
  const id = optionalString(item['id'], `${path}.id`, context)
  return {
    id: callId || id || stableToolCallId(responseId, index, name),
    name,
    arguments: optionalString(item['arguments'], `${path}.arguments`, context) || blank,
  }
}

/** How a response ended, in the library's words; a refusal is a content filter with its text kept. */
export function responsesFinish(
  status: string | undefined,
  incompleteReason: string | undefined,
  hasToolCalls: boolean,
  refusal: string,
): GenerationMetadata {
  if (refusal) return { finishReason: 'content_filter', refusal }
  // Any other reason an answer is incomplete is still an answer cut short.
  if (status === 'incomplete') {
    const reason =
      incompleteReason === 'max_output_tokens'
        ? 'length'
        : incompleteReason === 'content_filter'
          ? incompleteReason
          : 'incomplete'
    return { finishReason: reason, ...(incompleteReason ? { providerFinishReason: incompleteReason } : {}) }
  }
  return { finishReason: hasToolCalls ? 'tool_calls' : 'stop' }
}

/** A failed response (`response.failed`, `error` events, or `status: failed`) as a ChatModelError. */
export function responsesError(error: unknown, context: ErrorContext) {
  return inBandError(error, context, 'the response failed')
}

export function fromResponsesBody(body: unknown, context: ErrorContext): ChatResponse {
  const response = objectAt(body, 'the body', context)
  const status = optionalString(response['status'], 'status', context)
  if (status === 'failed' || (response['error'] !== undefined && response['error'] !== null))
    throw responsesError(response['error'], context)
  const id = firstNonEmpty(undefined, response['id'])
  let text = ''
  let refusal = ''
  const reasoning: string[] = []
  const toolCalls: ToolCall[] = []
  const replay: ReplayItem[] = []
  const order = new OutputOrder()
  optionalArray(response['output'], 'output', context).forEach((entry, index) => {
    const path = `output[${index}]`
    const item = objectAt(entry, path, context)
    const itemId = optionalString(item['id'], `${path}.id`, context)
    switch (item['type']) {
      case 'message': {
        const words = messageTextOf(item, path, context)
        text += words
        order.text(words)
        optionalArray(item['content'], `${path}.content`, context).forEach((entry, position) => {
          const part = objectAt(entry, `${path}.content[${position}]`, context)
          if (part['type'] === 'refusal') refusal += optionalString(part['refusal'], `${path}.refusal`, context) ?? ''
        })
        if (itemId) replay.push({ type: 'message', id: itemId })
        break
      }
      case 'function_call': {
        const call = toolCallOf(item, path, context, id, toolCalls.length, status === 'incomplete' ? '' : '{}')
        toolCalls.push(call)
        order.toolCall(call)
        if (itemId) replay.push({ type: 'function_call', id: itemId, callId: call.id })
        break
      }
      case 'reasoning': {
        const words = reasoningTextOf(item, path, context)
        reasoning.push(words)
        order.reasoning(words)
        replay.push({ type: 'reasoning', item })
        break
      }
    }
  })
  const incomplete = optionalObject(response['incomplete_details'], 'incomplete_details', context)
  const reasoningText = reasoning.filter(Boolean).join('\n\n')
  const model = firstNonEmpty(undefined, response['model'])
  const usage = toResponsesUsage(response['usage'])
  return {
    results: [
      {
        output: {
          role: 'assistant',
          text,
          toolCalls,
          ...(reasoningText ? { reasoning: reasoningText } : {}),
          ...order.partsIfNeeded(),
          ...(replay.some((item) => item.type === 'reasoning') ? { metadata: { [RESPONSES_ITEMS]: replay } } : {}),
        },
        metadata: responsesFinish(
          status,
          optionalString(incomplete?.['reason'], 'incomplete_details.reason', context),
          toolCalls.length > 0,
          refusal,
        ),
      },
    ],
    metadata: { ...(id ? { id } : {}), ...(model ? { model } : {}), ...(usage ? { usage } : {}) },
  }
}

/** The text of a message output item: its `output_text` parts joined. */
export function messageTextOf(item: WireObject, path: string, context: ErrorContext): string {
  let text = ''
  optionalArray(item['content'], `${path}.content`, context).forEach((entry, position) => {
    const part = objectAt(entry, `${path}.content[${position}]`, context)
    if (part['type'] === 'output_text') text += optionalString(part['text'], `${path}.text`, context) ?? ''
  })
  return text
}

/**
 * The output items as parts in order. Reasoning items are joined with a blank line (as the
 * message's `reasoning` is), so the separator belongs to the part that follows it.
 */
export class OutputOrder {
  readonly #parts: AssistantPart[] = []
  #reasoningSeen = false

  text(text: string): void {
    if (text) this.#parts.push({ type: 'text', text })
  }

  reasoning(text: string): void {
    if (!text) return
    this.#parts.push({ type: 'reasoning', text: this.#reasoningSeen ? `\n\n${text}` : text })
    this.#reasoningSeen = true
  }

  toolCall(call: ToolCall): void {
    this.#parts.push({ type: 'tool-call', ...call })
  }

  /** `{ parts }` when the order says more than reasoning, text, tool calls; else nothing. */
  partsIfNeeded(): { parts?: AssistantPart[] } {
    return isPlainOrder(this.#parts) ? {} : { parts: this.#parts }
  }
}
