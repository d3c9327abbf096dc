import type { Message, ToolCall, Usage } from '../core'
import { scrubSecretsDeep } from './scrub-deep'
import { type TraceEvent, type TraceEventOf, TraceFileError } from './index'

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
 * The full messages of every model request, built run by run in `seq` order. A run's requests
 * share one growing history (each `shared` prefix is the history so far), and each interaction's
 * `messages` is cut from it when first read: building a cassette is linear in the trace, not in
 * its square (8,000 rounds hold 64 million message references in all).
 */
function messagesOfRequests(
  events: readonly TraceEvent[],
  wanted: ReadonlySet<string> | undefined,
): Map<TraceEventOf<'model-request'>, () => Message[]> {
  const byRun = new Map<string, Array<TraceEventOf<'model-request'>>>()
  for (const event of events) {
    if (event.type !== 'model-request' || (wanted && !wanted.has(event.runId))) continue
    let requests = byRun.get(event.runId)
    if (!requests) byRun.set(event.runId, (requests = []))
    requests.push(event)
  }
  const messagesOf = new Map<TraceEventOf<'model-request'>, () => Message[]>()
  for (const requests of byRun.values()) {
    requests.sort((a, b) => a.seq - b.seq)
    let history: Message[] = []
    for (const request of requests) {
      const shared = request.shared ?? 0
      if (shared > history.length) {
        throw new TraceFileError(
          `model-request ${request.seq} of run ${request.runId} shares ${shared} messages but the request before it has ${history.length}`,
        )
      }
      // A request that drops messages starts a history of its own; the earlier ones keep theirs.
      if (shared < history.length) history = history.slice(0, shared)
      // A trace imported from elsewhere may hold a secret this page registered; each message is scrubbed once.
      for (const message of request.messages) history.push(scrubSecretsDeep(message))
      const base = history
      const length = history.length
      messagesOf.set(request, () => base.slice(0, length))
    }
  }
  return messagesOf
}

/** An interaction's request whose `messages` are copied out of the run's history on first read. */
function lazyRequest(messages: () => Message[], tools: string[]): Interaction['request'] {
  const request = { tools } as Interaction['request']
  Object.defineProperty(request, 'messages', {
    enumerable: true,
    configurable: true,
    get() {
      const value = messages()
      Object.defineProperty(request, 'messages', { value, enumerable: true, writable: true, configurable: true })
      return value
    },
  })
  return request
}

/**
 * Turns a trace (of a WebLLM or remote session, recorded by an ObserverAdvisor inside the loop)
 * into a cassette: every model request of the chosen runs, with the response it got.
 */
export function cassetteFromTrace(events: readonly TraceEvent[], runIds?: readonly string[]): Cassette {
  const wanted = runIds ? new Set(runIds) : undefined
  const sentMessages = messagesOfRequests(events, wanted)
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
        request: lazyRequest(
          sentMessages.get(request)!,
          (request.options.tools ?? []).map((tool) => tool.name),
        ),
        response: scrubSecretsDeep({
          text: event.text,
          toolCalls: event.toolCalls,
          ...(event.finishReason ? { finishReason: event.finishReason } : {}),
          ...(event.usage ? { usage: event.usage } : {}),
          ...(event.model ? { model: event.model } : {}),
          ...(deltas ? { chunks: deltas } : {}),
        }),
      })
      requests.delete(key)
    }
  }
  if (interactions.length === 0) {
    throw new Error(
      'The trace holds no model call with its request and response; record it with an ObserverAdvisor inside the tool loop (the default order)',
    )
  }
  return { format: CASSETTE_FORMAT, version: 1, recordedAt: new Date().toISOString(), interactions }
}
