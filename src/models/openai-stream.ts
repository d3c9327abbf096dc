import type { ServerSentEvent } from './sse'
import { stoppedShort, type AssistantMessage, type ToolCallDelta, type ChatResponse, type Usage } from '../core'
import { streamCut, type ErrorContext } from './errors'
import { inBandError } from './http-error'
import { serverSentEvents } from './sse'
import { stableToolCallId } from './stable-id'
import {
  readTextAndReasoning,
  toChatResponse,
  toGeneration,
  readToolCalls,
  toToolCall,
  toUsage,
  type OpenAIToolCall,
} from './openai-mapping'
import {
  firstNonEmpty,
  invalidResponse,
  objectAt,
  optionalArray,
  optionalIndex,
  optionalObject,
  optionalString,
  streamEvent,
  type WireObject,
} from './wire'

interface PendingCall {
  id: string
  name: string
  arguments: string
  /** Its place among the calls, in the order they started. */
  position: number
  /** Whether its start, and how much of its arguments, went out as progress (`toolCallDeltas`). */
  announced: boolean
  reported: number
}

/** More distinct tool calls than this in one response is a broken or hostile stream. */
export const MAX_STREAMED_TOOL_CALLS = 128

/**
 * Turns the server-sent events of a Chat Completions stream into ChatResponse chunks: text and
 * reasoning deltas as they come, tool calls assembled from their fragments and sent whole, with the
 * finish reason and usage, in one last chunk. Copes with what compatible servers do differently.
 */
export class OpenAIStreamReader {
  /** Fragments keyed by the server's index (which may start anywhere), compacted in order at the end. */
  readonly #calls = new Map<number, PendingCall>()
  #lastKey: number | undefined
  #id: string | undefined
  #model: string | undefined
  #finishReason: string | undefined
  #usage: Usage | undefined
  #refusal = ''
  /** Whether reasoning came as `reasoning_content`, which such servers need back with the calls (DeepSeek). */
  #reasoningContent = false
  #done = false
  /** Progress of the calls in the event being read, when the request asked for it. */
  #progress: ToolCallDelta[] | undefined

  readonly #context: ErrorContext
  readonly #toolCallDeltas: boolean

  constructor(context: ErrorContext, toolCallDeltas = false) {
    this.#context = context
    this.#toolCallDeltas = toolCallDeltas
  }

  /** The chunks one event yields (reasoning and text deltas). */
  read(event: ServerSentEvent): ChatResponse[] {
    if (this.#done) return []
    const data = event.data.trim()
    if (data === '[DONE]') {
      this.#done = true
      return []
    }
    if (data === '') return []
    const chunk = streamEvent(event, 'a stream chunk', this.#context)
    if (!chunk) return []
    if (event.event === 'error' || (chunk['error'] !== undefined && chunk['error'] !== null))
      throw inBandError(chunk['error'] ?? chunk, this.#context, 'the stream reported an error')
    this.#id = firstNonEmpty(this.#id, chunk['id'])
    this.#model = firstNonEmpty(this.#model, chunk['model'])
    // Groq has sent usage under `x_groq`, Moonshot inside the choice.
    this.#usage =
      toUsage(chunk['usage']) ?? toUsage((chunk['x_groq'] as WireObject | null | undefined)?.['usage']) ?? this.#usage
    const out: ChatResponse[] = []
    optionalArray(chunk['choices'], 'choices', this.#context).forEach((entry, position) => {
      const path = `choices[${position}]`
      const choice = objectAt(entry, path, this.#context)
      if ((optionalIndex(choice['index'], `${path}.index`, this.#context) ?? 0) !== 0) return
      this.#usage = toUsage(choice['usage']) ?? this.#usage
      this.#finishReason =
        optionalString(choice['finish_reason'], `${path}.finish_reason`, this.#context) ?? this.#finishReason
      const delta = optionalObject(choice['delta'], `${path}.delta`, this.#context) ?? {}
      const { text, reasoning, refusal } = readTextAndReasoning(delta, `${path}.delta`, this.#context)
      this.#refusal += refusal
      this.#reasoningContent ||= typeof delta['reasoning_content'] === 'string'
      for (const call of readToolCalls(delta['tool_calls'], `${path}.delta.tool_calls`, this.#context))
        this.#addFragment(call)
      if (reasoning) out.push(deltaChunk({ reasoning }))
      if (text) out.push(deltaChunk({ text }))
      if (this.#progress) {
        out.push(deltaChunk({ toolCallDeltas: this.#progress }))
        this.#progress = undefined
      }
    })
    return out
  }

  /**
   * The last chunk: tool calls whole, finish reason, usage. A stream that closes after a finish
   * reason but without `[DONE]` is complete (as OpenAI's SDK reads it); one cut before is not.
   */
  finish(): ChatResponse {
    if (!this.#done && this.#finishReason === undefined) throw streamCut('its finish reason or [DONE]', this.#context)
    // Blank arguments of a finished call mean none; those of a call cut short stay as they came.
    const blank = stoppedShort(this.#finishReason) ? '' : '{}'
    const toolCalls = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call], position) => toToolCall(call, position, this.#id, blank))
    const generation = toGeneration(
      '',
      '',
      toolCalls,
      this.#reasoningContent,
      this.#finishReason,
      this.#refusal,
      this.#context,
    )
    return toChatResponse([generation], this.#id, this.#model, this.#usage)
  }

  /**
   * Fragments of one call share an index. A server that sends no index sends each call whole
   * (matched by id when it repeats one); a bare fragment continues the call before it.
   */
  #addFragment(fragment: OpenAIToolCall): void {
    const key = this.#keyOf(fragment)
    let call = this.#calls.get(key)
    if (!call) {
      if (this.#calls.size >= MAX_STREAMED_TOOL_CALLS)
        throw invalidResponse(
          this.#context,
          `more than ${MAX_STREAMED_TOOL_CALLS} tool calls in one response`,
          fragment,
        )
      call = { id: '', name: '', arguments: '', position: this.#calls.size, announced: false, reported: 0 }
      this.#calls.set(key, call)
    }
    this.#lastKey = key
    if (fragment.id) call.id = fragment.id
    // Most servers send the name once; some repeat it with every fragment.
    const name = fragment.name
    if (name && call.name !== name) call.name += name
    const args = fragment.arguments
    if (typeof args === 'string') call.arguments += args
    else if (args) call.arguments = JSON.stringify(args)
    if (this.#toolCallDeltas) this.#report(call)
  }

  /** A call's progress once its name is known, with the id it will have at the end. */
  #report(call: PendingCall): void {
    if (!call.name) return
    const argumentsDelta = call.arguments.slice(call.reported)
    if (call.announced && !argumentsDelta) return
    call.announced = true
    const delta: ToolCallDelta = {
      index: call.position,
      id: call.id || stableToolCallId(this.#id, call.position, call.name),
      name: call.name,
      argumentsDelta,
    }
    call.reported = call.arguments.length
    ;(this.#progress ??= []).push(delta)
  }

  #keyOf(fragment: OpenAIToolCall): number {
    if (fragment.index !== undefined) return fragment.index
    for (const [key, call] of this.#calls) if (fragment.id && call.id === fragment.id) return key
    if (!fragment.id && !fragment.name && this.#lastKey !== undefined) return this.#lastKey
    return this.#calls.size === 0 ? 0 : Math.max(...this.#calls.keys()) + 1
  }
}

/** A chunk of text, reasoning or tool-call progress. */
function deltaChunk(delta: Partial<AssistantMessage>): ChatResponse {
  return { results: [{ output: { role: 'assistant', text: '', toolCalls: [], ...delta }, metadata: {} }], metadata: {} }
}

/** The chunks of a streamed response. Loaded with the first stream, so an app that only calls pays nothing for it. */
export async function* readOpenAIStream(
  response: Response,
  signal: AbortSignal | undefined,
  context: ErrorContext,
  toolCallDeltas = false,
): AsyncGenerator<ChatResponse, void, undefined> {
  const reader = new OpenAIStreamReader(context, toolCallDeltas)
  for await (const event of serverSentEvents(response, signal, context)) yield* reader.read(event)
  yield reader.finish()
}
