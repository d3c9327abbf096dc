import type { AssistantMessage, Message } from './messages'
import type { JsonSchema } from './json-schema'
import type { ToolCallback } from './tool'

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string }

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; schema: JsonSchema; name?: string; strict?: boolean }

export interface ChatOptions {
  model?: string
  temperature?: number
  topP?: number
  maxTokens?: number
  stopSequences?: string[]
  seed?: number
  /** Executable tools; their definitions are sent to the model. */
  tools?: ToolCallback[]
  toolChoice?: ToolChoice
  /** Values handed to every tool call. */
  toolContext?: Record<string, unknown>
  responseFormat?: ResponseFormat
  /** Options only one provider understands, keyed by provider name. */
  providerOptions?: Record<string, Record<string, unknown>>
  /**
   * On a stream, also send each tool call's progress as it is generated (`output.toolCallDeltas`),
   * so a UI can show a call the moment it starts. Set by `.stream().parts()`; never sent to a provider.
   */
  toolCallDeltas?: boolean
}

export interface Prompt {
  messages: Message[]
  options: ChatOptions
}

export interface Usage {
  promptTokens: number
  /** Every generated token, reasoning tokens included. */
  completionTokens: number
  totalTokens: number
  /** The part of `completionTokens` spent on reasoning, when the provider says. */
  reasoningTokens?: number
  /** The part of `promptTokens` read from the provider's prompt cache. */
  cacheReadTokens?: number
  /** The part of `promptTokens` written to the provider's prompt cache. */
  cacheWriteTokens?: number
}

export interface GenerationMetadata {
  finishReason?: string
  [key: string]: unknown
}

export interface Generation {
  output: AssistantMessage
  metadata: GenerationMetadata
}

export interface ChatResponseMetadata {
  id?: string
  model?: string
  usage?: Usage
  [key: string]: unknown
}

export interface ChatResponse {
  results: Generation[]
  metadata: ChatResponseMetadata
}

/**
 * A model translates one request into one response. It never loops, retries or runs tools.
 *
 * Stream contract: every chunk holds one generation whose `output.text` is a delta; a tool call
 * appears whole in exactly one chunk; usage, when known, rides on the last chunk.
 */
export interface ChatModel {
  readonly provider: string
  /** True when the model can be constrained to a JSON Schema (`responseFormat: json_schema`); `entity()` then uses it. */
  readonly supportsNativeStructuredOutput?: boolean
  /**
   * The tokens the model can read at once (prompt and answer, for the in-browser engines), when it
   * knows: session memory compacts the conversation to fit it.
   */
  readonly contextWindow?: number
  /** Counts the tokens `prompt` takes, with the model's own tokenizer (exact where the engine can). */
  countTokens?(prompt: Prompt, signal?: AbortSignal): Promise<number>
  call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse>
  stream(prompt: Prompt, signal?: AbortSignal): AsyncIterable<ChatResponse>
}

export function hasToolCalls(response: ChatResponse | null | undefined): boolean {
  if (!response) return false
  for (const generation of response.results) {
    if (generation.output.toolCalls.length > 0) return true
  }
  return false
}

/** The first generation's output, or null when the response has none. */
export function firstOutput(response: ChatResponse | null | undefined): AssistantMessage | null {
  return response?.results[0]?.output ?? null
}

export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b
  if (!b) return a
  const sum: Usage = {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  }
  for (const key of ['reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0)
  }
  return sum
}
