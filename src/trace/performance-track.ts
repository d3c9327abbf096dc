import type { TraceSink } from './events'

const TRACK = 'advisor-chain'

/** `console.timeStamp` with the arguments of Chrome's performance extensibility API. */
interface TimeStampConsole {
  timeStamp(label: string, start: number, end: number, track: string, group: undefined, color: string): void
}

/** Labels kept for reuse, at most (round numbers, tool names). */
const MANY_LABELS = 1000

/**
 * Mirrors rounds (each a model call) and tool calls on a custom "advisor-chain" track of Chrome's
 * Performance panel. It uses `console.timeStamp` (Chrome's extensibility API): the panel records
 * the entry while it records and the page keeps nothing, so a page open all day does not grow; a
 * `performance.measure` entry would stay in the page's timeline buffer for good and costs a
 * structured clone of its detail each time.
 */
export function withPerformanceTrack(sink: TraceSink): TraceSink {
  const host = globalThis.console as Partial<TimeStampConsole> | undefined
  if (typeof host?.timeStamp !== 'function') return sink
  const marker = host as TimeStampConsole
  // The same labels come back every round: made once, they cost the page half as much to mark.
  const rounds: string[] = []
  const tools = new Map<string, string>()
  return {
    emit(event) {
      sink.emit(event)
      // Rounds and tool calls are marked, with no object made per event. A round is the model call
      // as the observer sees it (its model-response spans the same time): one bar for both.
      let name: string
      let color: string
      switch (event.type) {
        case 'round-end': {
          const round = event.round
          name = rounds[round] ?? `round ${round}`
          if (round < MANY_LABELS) rounds[round] = name
          color = 'primary'
          break
        }
        case 'tool-end': {
          const tool = event.toolCall.name
          let label = tools.get(tool)
          if (label === undefined) {
            label = `tool ${tool}`
            if (tools.size < MANY_LABELS) tools.set(tool, label)
          }
          name = label
          color = event.error ? 'error' : 'tertiary'
          break
        }
        default:
          return
      }
      try {
        marker.timeStamp(name, event.t - event.durationMs, event.t, TRACK, undefined, color)
      } catch {
        // An engine that refuses the arguments must never break observation.
      }
    },
  }
}
