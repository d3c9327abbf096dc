import type { ServerSentEvent } from './sse'
import { type ChatResponse, type ToolCall, type ToolCallDelta } from '../core'
import { streamError, type ErrorContext } from './errors'
import {
  OutputOrder,
  RESPONSES_ITEMS,
  messageTextOf,
  reasoningTextOf,
  responsesError,
  responsesFinish,
  toolCallOf,
  toResponsesUsage,
  type ReplayItem,
} from './openai-responses-mapping'
import {
  firstNonEmpty,
  invalidResponse,
  objectAt,
  optionalIndex,
  optionalObject,
  optionalString,
  type WireObject,
  streamEvent,
} from './wire'

/** More output items than this in one response is a broken or hostile stream. */
export const MAX_OUTPUT_ITEMS = 256

interface OutputItem {
  item: WireObject
  arguments: string
  /** Its place among the response's function calls (function_call items only). */
  callIndex: number
}

/**
 * Turns Responses API stream events into ChatResponse chunks: text and reasoning (summary) deltas
 * live; function calls whole, with the output items to replay, finish reason and usage, at the end.
 */
export class ResponsesStreamReader {
  /** Output items keyed by `output_index`, compacted in order at the end. */
  readonly #items = new Map<number, OutputItem>()
  #id: string | undefined
  #model: string | undefined
  #final: WireObject | undefined
  #refusal = ''
  #reasoningPart: string | undefined
  #callCount = 0

  constructor(
    private readonly context: ErrorContext,
    /** Send function calls' progress as they are generated (`toolCallDeltas`). */
    private readonly toolCallDeltas = false,
  ) {}

  read(message: ServerSentEvent): ChatResponse[] {
    if (this.#final) return []
    const event = streamEvent(message.data, 'a stream event', this.context)
    const type = optionalString(event['type'], 'type', this.context) ?? message.event
    const delta = () => optionalString(event['delta'], `${type}.delta`, this.context) ?? ''
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        this.#response(event)
        return []
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const added = this.#item(event, type)
        return added ? this.#progress(added, '') : []
      }
      case 'response.output_text.delta':
        return chunk(delta(), '')
      case 'response.refusal.delta':
        this.#refusal += delta()
        return []
      case 'response.function_call_arguments.delta': {
        const item = this.#itemAt(event)
        const fragment = delta()
        item.arguments += fragment
        return fragment ? this.#progress(item, fragment) : []
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return chunk('', this.#separated(event, delta()))
      case 'response.completed':
      case 'response.incomplete':
        this.#final = this.#response(event)
        return []
      case 'response.failed':
        throw responsesError(this.#response(event)['error'], this.context)
      case 'error':
        throw responsesError(isErrorEvent(event) ? event : event['error'], this.context)
      default:
        return []
    }
  }

  finish(): ChatResponse {
    if (!this.#final) {
      throw streamError(
        'the stream ended before response.completed; the connection may have dropped. Try again.',
        this.context,
        { retryable: true },
      )
    }
    const toolCalls: ToolCall[] = []
    const replay: ReplayItem[] = []
    const order = new OutputOrder()
    for (const [index, { item, arguments: args }] of [...this.#items.entries()].sort(([a], [b]) => a - b)) {
      const path = `output[${index}]`
      const itemId = optionalString(item['id'], `${path}.id`, this.context)
      if (item['type'] === 'function_call') {
        const whole = {
          ...item,
          arguments: optionalString(item['arguments'], `${path}.arguments`, this.context) || args,
        }
        const call = toolCallOf(whole, path, this.context, this.#id, toolCalls.length)
        toolCalls.push(call)
        order.toolCall(call)
        if (itemId) replay.push({ type: 'function_call', id: itemId, callId: call.id })
      } else if (item['type'] === 'message') {
        order.text(messageTextOf(item, path, this.context))
        if (itemId) replay.push({ type: 'message', id: itemId })
      } else if (item['type'] === 'reasoning') {
        order.reasoning(reasoningTextOf(item, path, this.context))
        replay.push({ type: 'reasoning', item })
      }
    }
    const status = optionalString(this.#final['status'], 'response.status', this.context)
    const incomplete = optionalObject(this.#final['incomplete_details'], 'incomplete_details', this.context)
    const usage = toResponsesUsage(this.#final['usage'])
    return {
      results: [
        {
          output: {
            role: 'assistant',
            text: '',
            toolCalls,
            // The order of the whole message, from the finished items (text and reasoning came as deltas).
            ...order.partsIfNeeded(),
            ...(replay.some((item) => item.type === 'reasoning') ? { metadata: { [RESPONSES_ITEMS]: replay } } : {}),
          },
          metadata: responsesFinish(
            status,
            optionalString(incomplete?.['reason'], 'incomplete_details.reason', this.context),
            toolCalls.length > 0,
            this.#refusal,
          ),
        },
      ],
      metadata: {
        ...(this.#id ? { id: this.#id } : {}),
        ...(this.#model ? { model: this.#model } : {}),
        ...(usage ? { usage } : {}),
      },
    }
  }

  #response(event: WireObject): WireObject {
    const response = objectAt(event['response'], `${String(event['type'])}.response`, this.context)
    this.#id = firstNonEmpty(this.#id, response['id'])
    this.#model = firstNonEmpty(this.#model, response['model'])
    return response
  }

  /** Records an item; returns it when it is new. */
  #item(event: WireObject, type: string): OutputItem | undefined {
    const index = optionalIndex(event['output_index'], `${type}.output_index`, this.context) ?? 0
    const item = objectAt(event['item'], `${type}.item`, this.context)
    const known = this.#items.get(index)
    if (known) {
      known.item = item
      return undefined
    }
    if (this.#items.size >= MAX_OUTPUT_ITEMS)
      throw invalidResponse(this.context, `more than ${MAX_OUTPUT_ITEMS} output items in one response`, index)
    const added = { item, arguments: '', callIndex: item['type'] === 'function_call' ? this.#callCount++ : -1 }
    this.#items.set(index, added)
    return added
  }

  /** A function call's start (`argumentsDelta` empty) or a fragment of its arguments, when asked for. */
  #progress(output: OutputItem, argumentsDelta: string): ChatResponse[] {
    if (!this.toolCallDeltas || output.callIndex < 0) return []
    const { item } = output
    const id = [item['call_id'], item['id']].find((value): value is string => typeof value === 'string' && value !== '')
    const delta: ToolCallDelta = {
      index: output.callIndex,
      id: id ?? '',
      name: typeof item['name'] === 'string' ? item['name'] : '',
      argumentsDelta,
    }
    const result = { role: 'assistant' as const, text: '', toolCalls: [], toolCallDeltas: [delta] }
    return [{ results: [{ output: result, metadata: {} }], metadata: {} }]
  }

  #itemAt(event: WireObject): OutputItem {
    const index = optionalIndex(event['output_index'], 'output_index', this.context) ?? 0
    const item = this.#items.get(index)
    if (!item) throw invalidResponse(this.context, `a delta for output item ${index}, which was never added`, index)
    return item
  }

  /** Summary parts (and reasoning items) are separated by a blank line, as a call joins them. */
  #separated(event: WireObject, text: string): string {
    const part = JSON.stringify([
      event['item_id'],
      event['output_index'],
      event['summary_index'],
      event['content_index'],
    ])
    const first = this.#reasoningPart === undefined
    const changed = this.#reasoningPart !== part
    this.#reasoningPart = part
    return !first && changed && text ? `\n\n${text}` : text
  }
}

function isErrorEvent(event: WireObject): boolean {
  return typeof event['message'] === 'string' || typeof event['code'] === 'string'
}

function chunk(text: string, reasoning: string): ChatResponse[] {
  if (!text && !reasoning) return []
  const output = { role: 'assistant' as const, text, toolCalls: [], ...(reasoning ? { reasoning } : {}) }
  return [{ results: [{ output, metadata: {} }], metadata: {} }]
}
