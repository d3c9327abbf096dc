import type { TraceEvent, TraceSink } from './events'

const TRACK = 'advisor-chain'

/**
 * Mirrors rounds, model calls and tool calls as `performance.measure` entries, which Chrome's
 * Performance panel shows on a custom "advisor-chain" track (the `detail.devtools` extension).
 */
export function withPerformanceTrack(sink: TraceSink): TraceSink {
  if (typeof performance === 'undefined' || typeof performance.measure !== 'function') return sink
  return {
    emit(event) {
      sink.emit(event)
      const entry = measureOf(event)
      if (!entry) return
      try {
        performance.measure(entry.name, {
          start: event.t - entry.durationMs,
          end: event.t,
          detail: {
            devtools: { dataType: 'track-entry', track: TRACK, color: entry.color, tooltipText: entry.name },
            runId: event.runId,
            round: event.round,
          },
        })
      } catch {
        // A buffer limit or an old engine must never break observation.
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
