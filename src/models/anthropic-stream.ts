import type { EventSourceMessage } from 'eventsource-parser'
import type { ToolCall, ChatResponse } from '../core'
import { scrubAndTruncate } from '../core'
import { parseProviderError, streamError, type ErrorContext } from './errors'
import { assembled, toUsage, type AnthropicUsage } from './anthropic-mapping'

interface StreamEvent {
  type?: string
  index?: number
  message?: { id?: string; model?: string; usage?: AnthropicUsage }
  content_block?: { type?: string; id?: string; name?: string; input?: unknown; text?: string; thinking?: string }
  delta?: {
    type?: string
    text?: string
    partial_json?: string
    thinking?: string
    signature?: string
    stop_reason?: string | null
  }
  usage?: AnthropicUsage
  error?: unknown
}

interface Block {
  type: string
  id?: string | undefined
  name?: string | undefined
  json: string
}

/**
 * Turns Messages API stream events into ChatResponse chunks: text deltas live; tool calls from
 * their `input_json_delta` fragments and thinking kept aside, both delivered in the last chunk.
 */
export class AnthropicStreamReader {
  readonly #blocks = new Map<number, Block>()
  #id: string | undefined
  #model: string | undefined
  #usage: AnthropicUsage = {}
  #stopReason: string | null | undefined
  #thinking = ''
  #signature: string | undefined
  #done = false

  constructor(private readonly context: ErrorContext) {}

  read(message: EventSourceMessage): ChatResponse[] {
    if (this.#done) return []
    let event: StreamEvent
    try {
      event = JSON.parse(message.data) as StreamEvent
    } catch {
      throw streamError(`the stream sent a line that is not JSON: ${scrubAndTruncate(message.data, 120)}`, this.context)
    }
    switch (event.type ?? message.event) {
      case 'message_start':
        this.#id = event.message?.id
        this.#model = event.message?.model
        this.#usage = { ...event.message?.usage }
        return []
      case 'content_block_start': {
        const block = event.content_block ?? {}
        this.#blocks.set(event.index ?? 0, { type: block.type ?? 'text', id: block.id, name: block.name, json: '' })
        return block.type === 'text' && block.text ? [textChunk(block.text)] : []
      }
      case 'content_block_delta':
        return this.#delta(event)
      case 'message_delta':
        this.#stopReason = event.delta?.stop_reason ?? this.#stopReason
        // The usage here is cumulative for the message.
        this.#usage = { ...this.#usage, ...definedOnly(event.usage) }
        return []
      case 'message_stop':
        this.#done = true
        return []
      case 'error':
        throw this.#inBandError(event.error)
      default:
        return []
    }
  }

  finish(): ChatResponse {
    if (!this.#done) {
      throw streamError(
        'the stream ended before message_stop; the connection may have dropped. Try again.',
        this.context,
        { retryable: true },
      )
    }
    const toolCalls: ToolCall[] = [...this.#blocks.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, block]) => block.type === 'tool_use')
      .map(([, block]) => ({
        id: block.id ?? '',
        name: block.name ?? '',
        arguments: block.json.trim() === '' ? '{}' : block.json,
      }))
    const last = assembled({
      text: '',
      thinking: this.#thinking,
      signature: this.#signature,
      toolCalls,
      stopReason: this.#stopReason,
      id: this.#id,
      model: this.#model,
      usage: toUsage(this.#usage),
    })
    return last
  }

  #delta(event: StreamEvent): ChatResponse[] {
    const delta = event.delta ?? {}
    const block = this.#blocks.get(event.index ?? 0)
    switch (delta.type) {
      case 'text_delta':
        return delta.text ? [textChunk(delta.text)] : []
      case 'input_json_delta':
        if (block) block.json += delta.partial_json ?? ''
        return []
      case 'thinking_delta':
        this.#thinking += delta.thinking ?? ''
        return []
      case 'signature_delta':
        this.#signature = delta.signature
        return []
      default:
        return []
    }
  }

  #inBandError(error: unknown) {
    const provider = parseProviderError(JSON.stringify({ error }))
    const code = provider.type ?? provider.code
    const retryable = code === 'overloaded_error' || code === 'api_error' || code === 'rate_limit_error'
    return streamError(
      `the stream reported an error${code ? ` (${code})` : ''}: ${provider.message ?? 'unknown error'}`,
      this.context,
      {
        retryable,
        ...(code ? { code } : {}),
        ...(code === 'overloaded_error' ? { status: 529 } : {}),
      },
    )
  }
}

function textChunk(text: string): ChatResponse {
  return { results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }], metadata: {} }
}

function definedOnly(usage: AnthropicUsage | undefined): AnthropicUsage {
  return Object.fromEntries(Object.entries(usage ?? {}).filter(([, value]) => value !== undefined && value !== null))
}
