import type { ToolCall } from './messages'
import type { AssistantPart } from './parts'
import type { ChatResponse, ChatResponseMetadata, Generation, GenerationMetadata } from './model'

interface GenerationDraft {
  /** The deltas, joined once at the end: appending to a string makes a rope node per chunk that lives as long as the stream. */
  text: string[]
  reasoning: string[]
  toolCalls: ToolCall[]
  parts: AssistantPart[] | undefined
  metadata: GenerationMetadata
  messageMetadata: Record<string, unknown> | undefined
}

/**
 * Folds the chunks of one streamed model response into one ChatResponse: text and reasoning deltas are joined,
 * tool calls collected, and later metadata (finish reason, usage) wins over earlier. A chunk's `parts`
 * is not a delta: an adapter that knows the order of the whole message sends it once, at the end.
 */
export class ChatResponseAggregator {
  #drafts: GenerationDraft[] = []
  #metadata: ChatResponseMetadata = {}
  #chunks = 0

  get chunkCount(): number {
    return this.#chunks
  }

  /** Forgets what was folded: the answer starts over. */
  clear(): void {
    this.#drafts = []
    this.#metadata = {}
    this.#chunks = 0
  }

  add(chunk: ChatResponse): void {
    this.#chunks++
    const results = chunk.results
    for (let i = 0; i < results.length; i++) {
      const generation = results[i]!
      let draft = this.#drafts[i]
      if (!draft) {
        draft = { text: [], reasoning: [], toolCalls: [], parts: undefined, metadata: {}, messageMetadata: undefined }
        this.#drafts[i] = draft
      }
      if (generation.output.text) draft.text.push(generation.output.text)
      if (generation.output.reasoning) draft.reasoning.push(generation.output.reasoning)
      const toolCalls = generation.output.toolCalls
      if (toolCalls.length > 0) draft.toolCalls.push(...toolCalls)
      if (generation.output.parts) draft.parts = generation.output.parts
      mergeDefined(draft.metadata, generation.metadata)
      if (generation.output.metadata) {
        draft.messageMetadata = { ...draft.messageMetadata, ...generation.output.metadata }
      }
    }
    mergeDefined(this.#metadata, chunk.metadata)
  }

  /** A response of its own on every call (two readers may share the aggregator); the deltas are joined once. */
  result(): ChatResponse {
    const results: Generation[] = this.#drafts.map((draft) => ({
      output: {
        role: 'assistant',
        text: joined(draft.text),
        toolCalls: [...draft.toolCalls],
        ...(draft.reasoning.length > 0 ? { reasoning: joined(draft.reasoning) } : {}),
        ...(draft.parts ? { parts: draft.parts } : {}),
        ...(draft.messageMetadata ? { metadata: { ...draft.messageMetadata } } : {}),
      },
      metadata: { ...draft.metadata },
    }))
    return { results, metadata: { ...this.#metadata } }
  }
}

/** The deltas joined, kept as one so that joining them again costs nothing. */
function joined(deltas: string[]): string {
  if (deltas.length > 1) deltas.splice(0, deltas.length, deltas.join(''))
  return deltas[0] ?? ''
}

function mergeDefined(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key in source) {
    const value = source[key]
    if (value !== undefined) target[key] = value
  }
}

/** Aggregates a whole list of chunks. */
export function aggregateChunks(chunks: Iterable<ChatResponse>): ChatResponse {
  const aggregator = new ChatResponseAggregator()
  for (const chunk of chunks) aggregator.add(chunk)
  return aggregator.result()
}

/** Aggregates a stream read to its end: the `call` of a model that only streams. */
export async function aggregateStream(chunks: AsyncIterable<ChatResponse>): Promise<ChatResponse> {
  const aggregator = new ChatResponseAggregator()
  for await (const chunk of chunks) aggregator.add(chunk)
  return aggregator.result()
}
