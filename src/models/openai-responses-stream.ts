import type { ServerSentEvent } from './sse'
import { type ChatResponse, type ToolCall, type ToolCallDelta } from '../core'
import { streamCut, type ErrorContext } from './errors'
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
  optionalArray,
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
  /** How much of each text, refusal or reasoning part went out as deltas: a 'done' event sends only the rest. */
  readonly #sent = new Map<string, number>()

  constructor(
    private readonly context: ErrorContext,
    /** Send function calls' progress as they are generated (`toolCallDeltas`). */
    private readonly toolCallDeltas = false,
  ) {}

  read(message: ServerSentEvent): ChatResponse[] {
    if (this.#final) return []
    const event = streamEvent(message, 'a stream event', this.context)
    if (!event) return []
    const type = optionalString(event['type'], 'type', this.context) ?? message.event
    const text = (field: string) => optionalString(event[field], `${type}.${field}`, this.context) ?? ''
    const part = () => optionalObject(event['part'], `${type}.part`, this.context) ?? {}
    const index = optionalIndex(event['output_index'], `${type}.output_index`, this.context) ?? 0
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        this.#response(event)
        return []
      case 'response.output_item.added':
        return this.#item(index, objectAt(event['item'], `${type}.item`, this.context))
      case 'response.output_item.done':
        return this.#itemDone(index, objectAt(event['item'], `${type}.item`, this.context))
      case 'response.output_text.delta':
        return this.#words(false, index, event['content_index'], text('delta'), false)
      case 'response.output_text.done':
        return this.#words(false, index, event['content_index'], text('text'), true)
      case 'response.refusal.delta':
        return this.#words(true, index, event['content_index'], text('delta'), false)
      case 'response.refusal.done':
        return this.#words(true, index, event['content_index'], text('refusal'), true)
      case 'response.content_part.done':
        return this.#partDone(index, event['content_index'], part(), `${type}.part`)
      case 'response.function_call_arguments.delta':
        return this.#arguments(this.#itemAt(event), text('delta'), false)
      case 'response.function_call_arguments.done':
        return this.#arguments(this.#itemAt(event), text('arguments'), true)
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.#reasoning(index, event['summary_index'], event['content_index'], text('delta'), false)
      case 'response.reasoning_summary_text.done':
      case 'response.reasoning_text.done':
        return this.#reasoning(index, event['summary_index'], event['content_index'], text('text'), true)
      case 'response.reasoning_summary_part.done':
        return this.#reasoning(
          index,
          event['summary_index'],
          undefined,
          optionalString(part()['text'], `${type}.part.text`, this.context) ?? '',
          true,
        )
      case 'response.completed':
      case 'response.incomplete': {
        // The finished output is whole here: what no event before brought (text, a call) is sent now.
        const final = this.#response(event)
        const chunks = optionalArray(final['output'], `${type}.response.output`, this.context).flatMap((item, at) =>
          this.#itemDone(at, objectAt(item, `${type}.response.output[${at}]`, this.context)),
        )
        this.#final = final
        return chunks
      }
      case 'response.failed':
        throw responsesError(this.#response(event)['error'], this.context)
      case 'error':
        throw responsesError(isErrorEvent(event) ? event : event['error'], this.context)
      default:
        return []
    }
  }

  finish(): ChatResponse {
    if (!this.#final) throw streamCut('response.completed', this.context)
    const status = optionalString(this.#final['status'], 'response.status', this.context)
    // Blank arguments of a finished call mean none; those of a call cut short stay as they came.
    const blank = status === 'incomplete' ? '' : '{}'
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
        const call = toolCallOf(whole, path, this.context, this.#id, toolCalls.length, blank)
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

  /** Records an item, and announces a call that is new (its arguments stay until they are done). */
  #item(index: number, item: WireObject): ChatResponse[] {
    const known = this.#items.get(index)
    if (known) {
      known.item = item
      return []
    }
    if (this.#items.size >= MAX_OUTPUT_ITEMS)
      throw invalidResponse(this.context, `more than ${MAX_OUTPUT_ITEMS} output items in one response`, index)
    const added = { item, arguments: '', callIndex: item['type'] === 'function_call' ? this.#callCount++ : -1 }
    this.#items.set(index, added)
    return this.#progress(added, '')
  }

  /** A finished item: the text, refusal, reasoning and arguments in it that no delta brought go out now, as call() gives them. */
  #itemDone(index: number, item: WireObject): ChatResponse[] {
    const chunks = this.#item(index, item)
    const path = `output[${index}]`
    const parts = (field: string) =>
      optionalArray(item[field], `${path}.${field}`, this.context).map((entry, at) =>
        objectAt(entry, `${path}.${field}[${at}]`, this.context),
      )
    if (item['type'] === 'message') {
      parts('content').forEach((part, at) => chunks.push(...this.#partDone(index, at, part, `${path}.content[${at}]`)))
    } else if (item['type'] === 'reasoning') {
      const said = (part: WireObject) => optionalString(part['text'], `${path} reasoning`, this.context) ?? ''
      parts('summary').forEach((part, at) => chunks.push(...this.#reasoning(index, at, undefined, said(part), true)))
      parts('content').forEach((part, at) => chunks.push(...this.#reasoning(index, undefined, at, said(part), true)))
    } else if (item['type'] === 'function_call') {
      const args = optionalString(item['arguments'], `${path}.arguments`, this.context)
      if (args) chunks.push(...this.#arguments(this.#items.get(index)!, args, true))
    }
    return chunks
  }

  /** A finished message part: its text, or its refusal, whole. */
  #partDone(index: number, contentIndex: unknown, part: WireObject, path: string): ChatResponse[] {
    const refusal = part['type'] === 'refusal'
    if (!refusal && part['type'] !== 'output_text') return []
    const said = optionalString(part[refusal ? 'refusal' : 'text'], path, this.context) ?? ''
    return this.#words(refusal, index, contentIndex, said, true)
  }

  /** Text (or a refusal) of a message part: a delta, or the whole part (`done`) of which only the rest is new. */
  #words(refusal: boolean, index: number, contentIndex: unknown, said: string, done: boolean): ChatResponse[] {
    const fresh = this.#fresh(JSON.stringify([refusal, index, contentIndex ?? 0]), said, done)
    if (!refusal) return chunk(fresh, '')
    this.#refusal += fresh
    return []
  }

  /** Reasoning of a summary part or a reasoning text part: a delta, or the whole part (`done`). */
  #reasoning(index: number, summaryIndex: unknown, contentIndex: unknown, said: string, done: boolean): ChatResponse[] {
    const part = JSON.stringify([index, summaryIndex ?? null, contentIndex ?? null])
    return chunk('', this.#separated(part, this.#fresh(part, said, done)))
  }

  /** A function call's arguments: a fragment, or all of them (`done`, which wins) of which only the rest is new. */
  #arguments(output: OutputItem, said: string, done: boolean): ChatResponse[] {
    let fresh = said
    if (done) {
      fresh = said.startsWith(output.arguments) ? said.slice(output.arguments.length) : ''
      output.arguments = said || output.arguments
    } else output.arguments += said
    return fresh ? this.#progress(output, fresh) : []
  }

  /** What of a part's words was not sent yet: all of a delta; of a whole part, what its deltas did not bring. */
  #fresh(part: string, said: string, done: boolean): string {
    const sent = this.#sent.get(part) ?? 0
    const fresh = done ? said.slice(sent) : said
    if (fresh) this.#sent.set(part, sent + fresh.length)
    return fresh
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
  #separated(part: string, text: string): string {
    if (!text) return text
    const first = this.#reasoningPart === undefined
    const changed = this.#reasoningPart !== part
    this.#reasoningPart = part
    return !first && changed ? `\n\n${text}` : text
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
