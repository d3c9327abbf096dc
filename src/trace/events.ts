import type { ChatOptions, ToolDefinition } from '../core'
import type { bodies, header, Out, tracedAdvisor } from './validate-event'

// The event types, read off the protocol's checks in ./validate-event so the two never drift.

export { TRACE_VERSION } from './validate-event'

/** The options a model call was made with, as plain data: tools as their definitions, secrets masked. */
export type TracedOptions = Omit<ChatOptions, 'tools' | 'toolContext'> & {
  tools?: ToolDefinition[]
  /** The names of the tool context values (the values themselves may not be plain data). */
  toolContextKeys?: string[]
}

/** An advisor of the chain as the trace records it. */
export type TracedAdvisor = ReturnType<typeof tracedAdvisor>

/** The fields every trace event carries. */
export type TraceHeader = Out<typeof header>

export type RunStatus = 'ok' | 'error' | 'aborted'

type Bodies = typeof bodies

export type TraceEventBody = { [T in keyof Bodies]: { type: T } & Out<Bodies[T]> }[keyof Bodies]

export type TraceEventType = TraceEventBody['type']

/** One plain-data, versioned event of a run. */
export type TraceEvent = TraceHeader & TraceEventBody

export type TraceEventOf<T extends TraceEventType> = TraceHeader & Extract<TraceEventBody, { type: T }>

/** Where an observer delivers its events: the devtools store, a file, a test. */
export interface TraceSink {
  emit(event: TraceEvent): void
}
