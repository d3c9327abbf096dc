import {
  delay,
  throwIfAborted,
  type ToolCall,
  type ToolCallDelta,
  type ChatModel,
  type ChatResponse,
  type Prompt,
  type Usage,
} from '../core'

export interface ScriptedToolCall {
  /** Defaults to `call_<turn>_<index>`. */
  id?: string
  name: string
  /** Raw JSON text, or a value that is JSON-encoded. */
  arguments?: string | Record<string, unknown>
}

export interface ScriptedReply {
  text?: string
  toolCalls?: ScriptedToolCall[]
  usage?: Usage
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string
  /** On a stream, the text as these deltas; by default one delta per word. */
  chunks?: string[]
  /** Wait before answering a call, or between the chunks of a stream. */
  delayMs?: number
  /** Fail instead of answering; on a stream after `failAfterChunks` chunks (default 0). */
  error?: Error | string
  failAfterChunks?: number
  model?: string
  metadata?: Record<string, unknown>
}

/** A reply computed from the prompt; `turn` counts model calls from 0. */
export type ScriptFunction = (prompt: Prompt, turn: number) => ScriptStep | Promise<ScriptStep>
export type ScriptStep = string | ScriptedReply | ScriptFunction

export interface ScriptedChatModelOptions {
  /** Reported as `metadata.model`. */
  model?: string
  /** The window it says it has (`ChatModel.contextWindow`); the script decides what it refuses. */
  contextWindow?: number
}

/**
 * A test double, not a model: it replays a script of replies in order and records every prompt it
 * receives (`prompts`). For tests and the offline demo only.
 */
export class ScriptedChatModel implements ChatModel {
  readonly provider = 'scripted'
  readonly contextWindow?: number
  /** Every prompt received, in order (messages and options copied at the time of the call). */
  readonly prompts: Prompt[] = []
  readonly #script: readonly ScriptStep[] | ScriptFunction
  readonly #model: string

  constructor(script: readonly ScriptStep[] | ScriptFunction, options: ScriptedChatModelOptions = {}) {
    this.#script = script
    this.#model = options.model ?? 'scripted'
    if (options.contextWindow !== undefined) this.contextWindow = options.contextWindow
  }

  /** The model id its responses name (`metadata.model`). */
  get model(): string {
    return this.#model
  }

  /** How many script steps have not been played yet (Infinity for a script function). */
  get remaining(): number {
    return typeof this.#script === 'function' ? Infinity : this.#script.length - this.prompts.length
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    throwIfAborted(signal)
    const turn = this.#record(prompt)
    const reply = await this.#replyFor(prompt, turn)
    if (reply.delayMs) await delay(reply.delayMs, signal)
    if (reply.error !== undefined) throw toError(reply.error)
    const toolCalls = toToolCalls(reply.toolCalls, turn)
    return this.#response(reply, reply.text ?? '', toolCalls, true)
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    throwIfAborted(signal)
    const turn = this.#record(prompt)
    const reply = await this.#replyFor(prompt, turn)
    const deltas = reply.chunks ?? splitWords(reply.text ?? '')
    const toolCalls = toToolCalls(reply.toolCalls, turn)
    const failAt = reply.error === undefined ? -1 : (reply.failAfterChunks ?? 0)
    const last = toolCalls.length > 0 ? deltas.length : deltas.length - 1
    for (let i = 0; i < deltas.length; i++) {
      if (i === failAt) throw toError(reply.error!)
      if (reply.delayMs) await delay(reply.delayMs, signal)
      else throwIfAborted(signal)
      yield this.#response(reply, deltas[i]!, [], i === last)
    }
    if (failAt >= deltas.length) throw toError(reply.error!)
    if (prompt.options.toolCallDeltas) {
      // As a provider streams them: each call starts, then its arguments arrive in two pieces.
      for (const [index, call] of toolCalls.entries()) {
        const half = Math.ceil(call.arguments.length / 2)
        const pieces = ['', call.arguments.slice(0, half), call.arguments.slice(half)].filter(
          (piece, position) => position === 0 || piece !== '',
        )
        for (const argumentsDelta of pieces) {
          if (reply.delayMs) await delay(reply.delayMs, signal)
          else throwIfAborted(signal)
          yield progressChunk({ index, id: call.id, name: call.name, argumentsDelta }, reply.model ?? this.#model)
        }
      }
    }
    if (toolCalls.length > 0 || deltas.length === 0) {
      if (reply.delayMs) await delay(reply.delayMs, signal)
      else throwIfAborted(signal)
      yield this.#response(reply, '', toolCalls, true)
    }
  }

  #record(prompt: Prompt): number {
    this.prompts.push({ messages: [...prompt.messages], options: { ...prompt.options } })
    return this.prompts.length - 1
  }

  async #replyFor(prompt: Prompt, turn: number): Promise<ScriptedReply> {
    let step: ScriptStep | undefined
    if (typeof this.#script === 'function') step = this.#script
    else {
      step = this.#script[turn]
      if (step === undefined) {
        throw new Error(
          `ScriptedChatModel has no reply for model call #${turn + 1}: its script holds ${this.#script.length} step(s). Add a step or check why the model was called again.`,
        )
      }
    }
    while (typeof step === 'function') step = await step(prompt, turn)
    return typeof step === 'string' ? { text: step } : step
  }

  #response(reply: ScriptedReply, text: string, toolCalls: ToolCall[], final: boolean): ChatResponse {
    const finishReason = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')
    return {
      results: [
        {
          output: { role: 'assistant', text, toolCalls, ...(reply.metadata ? { metadata: reply.metadata } : {}) },
          metadata: final ? { finishReason } : {},
        },
      ],
      metadata: {
        model: reply.model ?? this.#model,
        ...(final && reply.usage ? { usage: reply.usage } : {}),
      },
    }
  }
}

function toToolCalls(calls: ScriptedToolCall[] | undefined, turn: number): ToolCall[] {
  if (!calls) return []
  return calls.map((call, index) => ({
    id: call.id ?? `call_${turn}_${index}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }))
}

function progressChunk(delta: ToolCallDelta, model: string): ChatResponse {
  const output = { role: 'assistant' as const, text: '', toolCalls: [], toolCallDeltas: [delta] }
  return { results: [{ output, metadata: {} }], metadata: { model } }
}

function toError(error: Error | string): Error {
  return typeof error === 'string' ? new Error(error) : error
}

function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : [])
}
