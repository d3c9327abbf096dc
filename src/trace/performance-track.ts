import type { TraceSink } from './events'

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
      // Only the three kinds that have a duration are marked, with no object made per event.
      let name: string
      let color: string
      switch (event.type) {
        case 'round-end':
          name = `round ${event.round}`
          color = 'primary'
          break
        case 'model-response':
          name = `model call (round ${event.round})`
          color = 'secondary'
          break
        case 'tool-end':
          name = `tool ${event.toolCall.name}`
          color = event.error ? 'error' : 'tertiary'
          break
        default:
          return
      }
      try {
        mark(name, event.t - event.durationMs, event.t, TRACK, undefined, color)
      } catch {
        // An engine that refuses the arguments must never break observation.
      }
    },
  }
}
