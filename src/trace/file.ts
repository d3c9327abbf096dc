import type { Message } from '../core'
import { TRACE_VERSION, type TraceEvent, type TraceEventOf } from './events'
import { TRACE_FILE_LIMITS } from './limits'
import { validateEvent } from './validate-event'

export const TRACE_FILE_FORMAT = 'advisor-chain-trace'

export interface TraceFile {
  format: typeof TRACE_FILE_FORMAT
  version: typeof TRACE_VERSION
  exportedAt: string
  events: TraceEvent[]
}

/** A session as a JSON file (plain data; secrets were masked when the events were recorded). */
export function exportTrace(events: readonly TraceEvent[]): string {
  const file: TraceFile = {
    format: TRACE_FILE_FORMAT,
    version: TRACE_VERSION,
    exportedAt: new Date().toISOString(),
    events: [...events],
  }
  return JSON.stringify(file)
}

export class TraceFileError extends Error {
  override readonly name = 'TraceFileError'
}

/**
 * Reads a trace file, checking every event against the protocol. The events are rebuilt as fresh
 * plain objects (no prototype tricks survive); anything malformed is refused with the first
 * problem named, e.g. `event 12 (tool-end): result must be a string`.
 */
export function importTrace(text: string): TraceEvent[] {
  if (typeof text !== 'string') throw new TraceFileError('A trace file must be text')
  if (text.length > TRACE_FILE_LIMITS.bytes)
    throw new TraceFileError(`The file is larger than ${TRACE_FILE_LIMITS.bytes / 2 ** 20} MB`)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new TraceFileError(`The file is not JSON: ${(error as Error).message}`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new TraceFileError('The file is not an advisor-chain trace (expected an object)')
  const file = parsed as Record<string, unknown>
  if (file['format'] !== TRACE_FILE_FORMAT)
    throw new TraceFileError(`The file is not an advisor-chain trace (format must be "${TRACE_FILE_FORMAT}")`)
  if (file['version'] !== TRACE_VERSION)
    throw new TraceFileError(
      `The trace has version ${JSON.stringify(file['version'])}; this version reads version ${TRACE_VERSION}`,
    )
  const events = file['events']
  if (!Array.isArray(events)) throw new TraceFileError('The trace has no events array')
  if (events.length > TRACE_FILE_LIMITS.events)
    throw new TraceFileError(`The trace has ${events.length} events; at most ${TRACE_FILE_LIMITS.events} are read`)
  // File order is kept: the devtools store groups events by run and round whatever order they come in.
  return events.map((event: unknown, index) => {
    try {
      return validateEvent(event)
    } catch (error) {
      const type = (event as { type?: unknown } | null)?.type
      throw new TraceFileError(
        `event ${index}${typeof type === 'string' ? ` (${type.slice(0, 40)})` : ''}: ${(error as Error).message}`,
      )
    }
  })
}

/**
 * The full messages of a `model-request` event: its `shared` prefix is resolved from the run's
 * earlier requests (by `seq`), in one pass over `events` whatever their order.
 */
export function reconstructMessages(events: readonly TraceEvent[], request: TraceEventOf<'model-request'>): Message[] {
  if (!request.shared) return request.messages
  const chain = events
    .filter(
      (event): event is TraceEventOf<'model-request'> =>
        event.type === 'model-request' && event.runId === request.runId && event.seq < request.seq,
    )
    .sort((a, b) => a.seq - b.seq)
  chain.push(request)
  // Only the requests after the last one that shared nothing matter.
  let first = chain.length - 1
  while (first > 0 && chain[first]!.shared) first--
  const messages: Message[] = []
  for (const step of chain.slice(first)) {
    const shared = step.shared ?? 0
    if (shared > messages.length) {
      throw new TraceFileError(
        `model-request ${step.seq} of run ${step.runId} shares ${shared} messages but the request before it has ${messages.length}`,
      )
    }
    messages.length = shared
    for (const message of step.messages) messages.push(message)
  }
  return messages
}
