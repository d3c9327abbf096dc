import type { TraceSink } from './events'

const TRACK = 'advisor-chain'
/** Labels kept for reuse, at most. */
const MANY_LABELS = 1000

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
  // Labels are made once: the same few repeat every round.
  const roundLabels: string[] = []
  const modelLabels: string[] = []
  const toolLabels = new Map<string, string>()
  const label = (labels: string[], round: number, prefix: string, suffix: string) =>
    round < MANY_LABELS ? (labels[round] ??= `${prefix}${round}${suffix}`) : `${prefix}${round}${suffix}`
  const toolLabel = (name: string) => {
    let text = toolLabels.get(name)
    if (text === undefined) {
      text = `tool ${name}`
      if (toolLabels.size < MANY_LABELS) toolLabels.set(name, text)
    }
    return text
  }
  return {
    emit(event) {
      sink.emit(event)
      try {
        // No entry object per event: the three kinds that have a duration are marked directly.
        switch (event.type) {
          case 'round-end':
            return mark(
              label(roundLabels, event.round, 'round ', ''),
              event.t - event.durationMs,
              event.t,
              TRACK,
              undefined,
              'primary',
            )
          case 'model-response':
            return mark(
              label(modelLabels, event.round, 'model call (round ', ')'),
              event.t - event.durationMs,
              event.t,
              TRACK,
              undefined,
              'secondary',
            )
          case 'tool-end':
            return mark(
              toolLabel(event.toolCall.name),
              event.t - event.durationMs,
              event.t,
              TRACK,
              undefined,
              event.error ? 'error' : 'tertiary',
            )
        }
      } catch {
        // An engine that refuses the arguments must never break observation.
      }
    },
  }
}
