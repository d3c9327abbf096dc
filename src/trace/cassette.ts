import { scrubSecretsDeep, type Message, type ToolCall, type Usage } from '../core'
import { type TraceEvent, type TraceEventOf, reconstructMessages } from './index'

export const CASSETTE_FORMAT = 'advisor-chain-cassette'

/** One model call of a recorded session: what was sent, and what came back. */
export interface Interaction {
  request: { messages: Message[]; tools: string[] }
  response: {
    text: string
    toolCalls: ToolCall[]
    finishReason?: string
    usage?: Usage
    model?: string
    /** The text as it was streamed, delta by delta (when the call was a stream). */
    chunks?: string[]
  }
}

/** The model responses of a recorded session, round by round, in order: plain JSON. */
export interface Cassette {
  format: typeof CASSETTE_FORMAT
  version: 1
  recordedAt: string
  interactions: Interaction[]
}

/**
 * Turns a trace (of a WebLLM or remote session, recorded by an ObserverAdvisor inside the loop)
 * into a cassette: every model request of the chosen runs, with the response it got.
 */
export function cassetteFromTrace(events: readonly TraceEvent[], runIds?: readonly string[]): Cassette {
  const wanted = runIds ? new Set(runIds) : undefined
  const interactions: Interaction[] = []
  const requests = new Map<string, TraceEventOf<'model-request'>>()
  const chunks = new Map<string, string[]>()
  for (const event of events) {
    if (wanted && !wanted.has(event.runId)) continue
    const key = `${event.runId}:${event.round}`
    if (event.type === 'model-request') {
      requests.set(key, event)
      chunks.delete(key)
    } else if (event.type === 'model-chunk' && event.text) {
      const list = chunks.get(key) ?? []
      list.push(event.text)
      chunks.set(key, list)
    } else if (event.type === 'model-response') {
      const request = requests.get(key)
      if (!request) continue
      const deltas = chunks.get(key)
      interactions.push({
        request: {
          messages: reconstructMessages(events, request),
          tools: (request.options.tools ?? []).map((tool) => tool.name),
        },
        response: {
          text: event.text,
          toolCalls: event.toolCalls,
          ...(event.finishReason ? { finishReason: event.finishReason } : {}),
          ...(event.usage ? { usage: event.usage } : {}),
          ...(event.model ? { model: event.model } : {}),
          ...(deltas ? { chunks: deltas } : {}),
        },
      })
      requests.delete(key)
    }
  }
  if (interactions.length === 0) {
    throw new Error(
      'The trace holds no model call with its request and response; record it with an ObserverAdvisor inside the tool loop (the default order)',
    )
  }
  // A trace imported from elsewhere may hold a secret this page registered.
  return scrubSecretsDeep({ format: CASSETTE_FORMAT, version: 1, recordedAt: new Date().toISOString(), interactions })
}
