import type { ServerSentEvent } from './sse'
import type { AssistantPart, ToolCall, ToolCallDelta, ChatResponse } from '../core'
import { stoppedShort } from '../core'
import { streamCut, type ErrorContext } from './errors'
import { inBandError } from './http-error'
import { serverSentEvents } from './sse'
import { reasoningChunk } from './engine-reply'
import { assembled, finishReasonOf, toUsage, type ThinkingBlock } from './anthropic-mapping'
import {
  firstNonEmpty,
  invalidResponse,
  isWireObject,
  objectAt,
  optionalIndex,
  optionalObject,
  optionalString,
  type WireObject,
  streamEvent,
} from './wire'

interface Block {
  type: string
  id?: string | undefined
  name?: string | undefined
  text: string
  /** A tool_use block's input as it started: a server that sends no deltas sends it whole here. */
  input: string
  /** Its place among the message's tool calls (tool_use blocks only). */
  toolIndex: number
  json: string
  thinking: string
  signature: string
  data: string
}

/** More content blocks than this in one message is a broken or hostile stream. */
export const MAX_CONTENT_BLOCKS = 256

/**
 * Turns Messages API stream events into ChatResponse chunks: text and thinking deltas live; tool
 * calls from their `input_json_delta` fragments and the signed thinking blocks in the last chunk.
 */
export class AnthropicStreamReader {
  readonly #blocks = new Map<number, Block>()
  #started = false
  #id: string | undefined
  #model: string | undefined
  #usage: WireObject = {}
  #stopReason: string | undefined
  #text = ''
  #done = false
  #toolCount = 0

  constructor(
    private readonly context: ErrorContext,
    /** Send tool calls' progress as they are generated (`toolCallDeltas`). */
    private readonly toolCallDeltas = false,
  ) {}

  read(message: ServerSentEvent): ChatResponse[] {
    if (this.#done) return []
    const event = streamEvent(message, 'a stream event', this.context)
    if (!event) return []
    const type = optionalString(event['type'], 'type', this.context) ?? message.event
    switch (type) {
      case 'message_start':
        return this.#start(event)
      case 'content_block_start':
        return this.#blockStart(event)
      case 'content_block_delta':
        return this.#delta(event)
      case 'message_delta': {
        const delta = optionalObject(event['delta'], 'message_delta.delta', this.context) ?? {}
        this.#stopReason = optionalString(delta['stop_reason'], 'delta.stop_reason', this.context) ?? this.#stopReason
        // The usage here is cumulative for the message.
        if (isWireObject(event['usage'])) this.#usage = { ...this.#usage, ...definedOnly(event['usage']) }
        return []
      }
      case 'message_stop':
        this.#done = true
        return []
      case 'error':
        throw inBandError(event['error'], this.context, 'the stream reported an error')
      default:
        return []
    }
  }

  finish(): ChatResponse {
    if (!this.#done) throw streamCut('message_stop', this.context)
    // Blank input of a finished call means none; that of a call cut short stays as it came.
    const blank = stoppedShort(finishReasonOf(this.#stopReason)) ? '' : '{}'
    const blocks = [...this.#blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block)
    const toolCalls: ToolCall[] = []
    const thinking: ThinkingBlock[] = []
    const order: AssistantPart[] = []
    for (const block of blocks) {
      if (block.type === 'tool_use') {
        const call = {
          id: block.id ?? '',
          name: block.name ?? '',
          arguments: block.json.trim() === '' ? block.input || blank : block.json,
        }
        toolCalls.push(call)
        order.push({ type: 'tool-call', ...call })
      } else if (block.type === 'thinking') {
        thinking.push({ type: 'thinking', thinking: block.thinking, signature: block.signature })
        order.push({ type: 'reasoning', text: block.thinking })
      } else if (block.type === 'redacted_thinking') {
        thinking.push({ type: 'redacted_thinking', data: block.data })
        order.push({ type: 'reasoning', text: '' })
      } else if (block.type === 'text') order.push({ type: 'text', text: block.text })
    }
    // Text and reasoning were streamed as deltas; the last chunk carries what only the end can,
    // the order of the whole message included (as `parts`, when it is not the plain order).
    return assembled(
      { text: '', reasoning: '', thinking, toolCalls, order, stopReason: this.#stopReason },
      { id: this.#id, model: this.#model, usage: toUsage(this.#usage) },
      this.#text,
    )
  }

  /** One message per stream: a second `message_start` means two responses were spliced together. */
  #start(event: WireObject): ChatResponse[] {
    if (this.#started)
      throw invalidResponse(this.context, 'a second message_start in one stream', event['message'] ?? null)
    this.#started = true
    const message = objectAt(event['message'], 'message_start.message', this.context)
    this.#id = firstNonEmpty(undefined, message['id'])
    this.#model = firstNonEmpty(undefined, message['model'])
    if (isWireObject(message['usage'])) this.#usage = { ...message['usage'] }
    return []
  }

  #blockStart(event: WireObject): ChatResponse[] {
    const index = optionalIndex(event['index'], 'content_block_start.index', this.context) ?? 0
    const block = objectAt(event['content_block'], 'content_block_start.content_block', this.context)
    if (!this.#blocks.has(index) && this.#blocks.size >= MAX_CONTENT_BLOCKS)
      throw invalidResponse(this.context, `more than ${MAX_CONTENT_BLOCKS} content blocks in one message`, index)
    const path = `content_block[${index}]`
    const type = optionalString(block['type'], `${path}.type`, this.context) ?? 'text'
    const text = optionalString(block['text'], `${path}.text`, this.context) ?? ''
    const thinking = optionalString(block['thinking'], `${path}.thinking`, this.context) ?? ''
    const started: Block = {
      type,
      id: optionalString(block['id'], `${path}.id`, this.context),
      name: optionalString(block['name'], `${path}.name`, this.context),
      text: '',
      input: startInput(block['input']),
      toolIndex: type === 'tool_use' ? this.#toolCount++ : -1,
      json: '',
      thinking,
      signature: optionalString(block['signature'], `${path}.signature`, this.context) ?? '',
      data: optionalString(block['data'], `${path}.data`, this.context) ?? '',
    }
    this.#blocks.set(index, started)
    if (type === 'tool_use') return this.#progress(started, '')
    if (type === 'text' && text) return [this.#textChunk(text, started)]
    return type === 'thinking' && thinking ? [reasoningChunk(thinking)] : []
  }

  #delta(event: WireObject): ChatResponse[] {
    const index = optionalIndex(event['index'], 'content_block_delta.index', this.context) ?? 0
    const delta = objectAt(event['delta'], 'content_block_delta.delta', this.context)
    const block = this.#blocks.get(index)
    const field = (name: string) => optionalString(delta[name], `delta.${name}`, this.context) ?? ''
    switch (delta['type']) {
      case 'text_delta': {
        const text = field('text')
        return text ? [this.#textChunk(text, block)] : []
      }
      case 'thinking_delta': {
        const thinking = field('thinking')
        if (block) block.thinking += thinking
        return thinking ? [reasoningChunk(thinking)] : []
      }
      case 'input_json_delta': {
        const json = field('partial_json')
        const started = this.#blockOf(block, index)
        started.json += json
        return json ? this.#progress(started, json) : []
      }
      case 'signature_delta':
        this.#blockOf(block, index).signature = field('signature')
        return []
      default:
        return []
    }
  }

  #progress(block: Block, argumentsDelta: string): ChatResponse[] {
    if (!this.toolCallDeltas || block.type !== 'tool_use') return []
    const delta: ToolCallDelta = { index: block.toolIndex, id: block.id ?? '', name: block.name ?? '', argumentsDelta }
    const output = { role: 'assistant' as const, text: '', toolCalls: [], toolCallDeltas: [delta] }
    return [{ results: [{ output, metadata: {} }], metadata: {} }]
  }

  #blockOf(block: Block | undefined, index: number): Block {
    if (!block) throw invalidResponse(this.context, `a delta for content block ${index}, which never started`, index)
    return block
  }

  #textChunk(text: string, block: Block | undefined): ChatResponse {
    this.#text += text
    if (block) block.text += text
    return { results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }], metadata: {} }
  }
}

/** A start's input as JSON text, or '' when it holds nothing (the usual `{}` that deltas fill in). */
function startInput(input: unknown): string {
  return isWireObject(input) && Object.keys(input).length > 0 ? JSON.stringify(input) : ''
}

function definedOnly(usage: WireObject): WireObject {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== undefined && value !== null))
}

/** The chunks of a streamed response. Loaded with the first stream, so an app that only calls pays nothing for it. */
export async function* readAnthropicStream(
  response: Response,
  signal: AbortSignal | undefined,
  context: ErrorContext,
  toolCallDeltas = false,
): AsyncGenerator<ChatResponse, void, undefined> {
  const reader = new AnthropicStreamReader(context, toolCallDeltas)
  for await (const event of serverSentEvents(response, signal, context)) yield* reader.read(event)
  yield reader.finish()
}
