import type { Message } from '../messages'
import type { TraceEvent, TraceEventOf } from './events'

/** The full messages of a `model-request` event, resolving the `shared` prefix from earlier requests of its run. */
export function reconstructRequest(events: readonly TraceEvent[], request: TraceEventOf<'model-request'>): Message[] {
  if (!request.shared) return request.messages
  const earlier = events.filter(
    (event): event is TraceEventOf<'model-request'> =>
      event.type === 'model-request' && event.runId === request.runId && event.seq < request.seq,
  )
  const previous = earlier.at(-1)
  if (!previous)
    throw new Error(`model-request ${request.seq} shares ${request.shared} messages but has no earlier request`)
  return [...reconstructRequest(events, previous).slice(0, request.shared), ...request.messages]
}
