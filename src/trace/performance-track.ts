import type { TraceEvent, TraceSink } from './events'

const TRACK = 'advisor-chain'

/** `console.timeStamp` with the arguments of Chrome's performance extensibility API. */
type TimeStamp = (label: string, start: number, end: number, track: string, group: undefined, color: string) => void

/**
 * Mirrors rounds, model calls and tool calls on a custom "advisor-chain" track of Chrome's
 * Performance panel. It uses `console.timeStamp` (Chrome's extensibility API): the panel records
 * the entry while it records and the page keeps nothing, so a page open all day does not grow; a
 * `performance.measure` entry would stay in the page's timeline buffer for good and costs a
 * structured clone of its detail each time.
 */
export function withPerformanceTrack(sink: TraceSink): TraceSink {
  const timeStamp = (globalThis.console as { timeStamp?: unknown } | undefined)?.timeStamp
  if (typeof timeStamp !== 'function') return sink
  const mark = timeStamp.bind(console) as TimeStamp
  return {
    emit(event) {
      sink.emit(event)
      const entry = measureOf(event)
      if (!entry) return
      try {
        mark(entry.name, event.t - entry.durationMs, event.t, TRACK, undefined, entry.color)
      } catch {
        // An engine that refuses the arguments must never break observation.
      }
    },
  }
}

function measureOf(event: TraceEvent): { name: string; durationMs: number; color: string } | undefined {
  switch (event.type) {
    case 'round-end':
      return { name: `round ${event.round}`, durationMs: event.durationMs, color: 'primary' }
    case 'model-response':
      return { name: `model call (round ${event.round})`, durationMs: event.durationMs, color: 'secondary' }
    case 'tool-end':
      return {
        name: `tool ${event.toolCall.name}`,
        durationMs: event.durationMs,
        color: event.error ? 'error' : 'tertiary',
      }
    default:
      return undefined
  }
}
