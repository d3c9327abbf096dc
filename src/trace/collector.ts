import type { TraceEvent, TraceEventOf, TraceEventType, TraceSink } from './events'

/** A sink that keeps every event in memory: for tests, exports and small apps. */
export class TraceCollector implements TraceSink {
  readonly events: TraceEvent[] = []

  emit(event: TraceEvent): void {
    this.events.push(event)
  }

  /** Events of one type, optionally of one run. */
  ofType<T extends TraceEventType>(type: T, runId?: string): Array<TraceEventOf<T>> {
    return this.events.filter(
      (event): event is TraceEventOf<T> => event.type === type && (runId === undefined || event.runId === runId),
    )
  }

  /** The ids of the runs seen, in the order they started. */
  runIds(): string[] {
    return this.ofType('run-start').map((event) => event.runId)
  }

  clear(): void {
    this.events.length = 0
  }
}

/** One sink that hands every event to several. */
export function fanOut(...sinks: TraceSink[]): TraceSink {
  return { emit: (event) => sinks.forEach((sink) => sink.emit(event)) }
}
