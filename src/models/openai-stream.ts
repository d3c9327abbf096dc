import type { EventSourceMessage } from 'eventsource-parser'
import type { ToolCall, ChatResponse, Usage } from '../core'
import { scrubAndTruncate } from '../core'
import { parseProviderError, streamError, type ErrorContext } from './errors'
import { toToolCall, toUsage, type OpenAIToolCall, type OpenAIUsage } from './openai-mapping'

interface Chunk {
  id?: string
  model?: string
  error?: unknown
  usage?: OpenAIUsage | null
  choices?: Array<{
    index?: number
    finish_reason?: string | null
    delta?: {
      content?: string | null
      refusal?: string | null
      reasoning?: string | null
      reasoning_content?: string | null
      tool_calls?: OpenAIToolCall[] | null
    }
  }>
}

interface PendingCall {
  id: string
  name: string
  arguments: string
}

/**
 * Turns the server-sent events of a Chat Completions stream into ChatResponse chunks: text deltas
 * as they come, tool calls assembled from their fragments and sent whole, with the finish reason
 * and usage, in one last chunk. Copes with what compatible servers do differently.
 */
export class OpenAIStreamReader {
  readonly #calls: PendingCall[] = []
  #id: string | undefined
  #model: string | undefined
  #finishReason: string | undefined
  #usage: Usage | undefined
  #reasoning = ''
  #refusal = ''
  #done = false

  constructor(private readonly context: ErrorContext) {}

  /** The chunks one event yields (text deltas), and whether the stream said it is done. */
  read(event: EventSourceMessage): ChatResponse[] {
    if (this.#done) return []
    const data = event.data.trim()
    if (data === '[DONE]') {
      this.#done = true
      return []
    }
    if (data === '') return []
    let chunk: Chunk
    try {
      chunk = JSON.parse(data) as Chunk
    } catch {
      throw streamError(`the stream sent a line that is not JSON: ${scrubAndTruncate(data, 120)}`, this.context)
    }
    if (event.event === 'error' || chunk.error) throw this.#inBandError(chunk.error ?? chunk)
    this.#id ??= chunk.id
    this.#model ??= chunk.model
    this.#usage = toUsage(chunk.usage) ?? this.#usage
    const out: ChatResponse[] = []
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue
      const delta = choice.delta ?? {}
      if (choice.finish_reason) this.#finishReason = choice.finish_reason
      this.#reasoning += delta.reasoning ?? delta.reasoning_content ?? ''
      this.#refusal += delta.refusal ?? ''
      delta.tool_calls?.forEach((call, position) => this.#addFragment(call, position))
      if (delta.content) out.push(textChunk(delta.content))
    }
    return out
  }

  /** The last chunk: tool calls whole, finish reason, usage. Throws when the stream never said it was done. */
  finish(): ChatResponse {
    if (!this.#done) {
      throw streamError(
        'the stream ended before it was complete (no [DONE]); the connection may have dropped. Try again.',
        this.context,
        {
          retryable: true,
        },
      )
    }
    const toolCalls: ToolCall[] = this.#calls.map((call, index) =>
      toToolCall({ id: call.id, function: { name: call.name, arguments: call.arguments || '{}' } }, index, this.#id),
    )
    return {
      results: [
        {
          output: { role: 'assistant', text: '', toolCalls },
          metadata: {
            ...(this.#finishReason ? { finishReason: this.#finishReason } : {}),
            ...(this.#reasoning ? { reasoning: this.#reasoning } : {}),
            ...(this.#refusal ? { refusal: this.#refusal } : {}),
          },
        },
      ],
      metadata: {
        ...(this.#id ? { id: this.#id } : {}),
        ...(this.#model ? { model: this.#model } : {}),
        ...(this.#usage ? { usage: this.#usage } : {}),
      },
    }
  }

  /** Fragments of one call share an index; a server that sends no index sends each call whole. */
  #addFragment(fragment: OpenAIToolCall, position: number): void {
    const index = fragment.index ?? (fragment.id ? this.#calls.findIndex((call) => call.id === fragment.id) : position)
    let call = index >= 0 ? this.#calls[index] : undefined
    if (!call) {
      call = { id: '', name: '', arguments: '' }
      this.#calls[index >= 0 ? index : this.#calls.length] = call
    }
    if (fragment.id) call.id = fragment.id
    // Most servers send the name once; some repeat it with every fragment.
    const name = fragment.function?.name
    if (name && call.name !== name) call.name += name
    const args = fragment.function?.arguments
    if (typeof args === 'string') call.arguments += args
    else if (args) call.arguments = JSON.stringify(args)
  }

  #inBandError(error: unknown) {
    const provider = parseProviderError(JSON.stringify(error))
    const details = error as { status_code?: unknown; code?: unknown }
    const status =
      typeof details.status_code === 'number'
        ? details.status_code
        : typeof details.code === 'number'
          ? details.code
          : undefined
    const retryable = status === undefined ? false : status === 429 || status >= 500
    return streamError(
      `the stream reported an error${provider.code ? ` (${provider.code})` : ''}: ${provider.message ?? 'unknown error'}`,
      this.context,
      {
        retryable,
        ...(status !== undefined ? { status } : {}),
        ...(provider.code ? { code: provider.code } : {}),
      },
    )
  }
}

function textChunk(text: string): ChatResponse {
  return { results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }], metadata: {} }
}
