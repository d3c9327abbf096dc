import type { ErrorInfo, Message, ToolCall, ChatOptions, Usage, ToolDefinition } from '../core'

/** The version of the trace protocol; a trace file from another version is refused on import. */
export const TRACE_VERSION = 1

/** The options a model call was made with, as plain data: tools as their definitions, secrets masked. */
export type TracedOptions = Omit<ChatOptions, 'tools' | 'toolContext'> & {
  tools?: ToolDefinition[]
  /** The names of the tool context values (the values themselves may not be plain data). */
  toolContextKeys?: string[]
}

/** An advisor of the chain as the trace records it. */
export interface TracedAdvisor {
  name: string
  order: number
  /** Runs once per call, or every round of the tool loop. */
  placement: 'outside-loop' | 'tool-loop' | 'inside-loop'
}

/** The fields every trace event carries. */
export interface TraceHeader {
  /** Protocol version. */
  v: typeof TRACE_VERSION
  /** Order of emission within one observer, from 0. */
  seq: number
  runId: string
  /** The round of the tool loop, from 1; 0 for events of the run as a whole. */
  round: number
  /** The advisor that reported the event. */
  advisor: string
  /** Monotonic milliseconds (`performance.now()` of the page that recorded the trace). */
  t: number
}

export type RunStatus = 'ok' | 'error' | 'aborted'

export type TraceEventBody =
  | {
      type: 'run-start'
      mode: 'call' | 'stream'
      /** Wall-clock start, ms since the epoch. */
      startedAt: number
      /** Where the observer that recorded the run sits. */
      observer: 'inside-loop' | 'outside-loop' | 'no-loop'
      chain: TracedAdvisor[]
    }
  | {
      type: 'run-end'
      status: RunStatus
      durationMs: number
      rounds: number
      usage?: Usage
      finishReason?: string
      error?: ErrorInfo
    }
  | { type: 'round-start' }
  | { type: 'round-end'; status: RunStatus; durationMs: number }
  | {
      type: 'model-request'
      provider?: string
      /**
       * The messages sent, after every advisor's changes. When `shared` is set, the first `shared`
       * messages are those of the previous model request of the run and `messages` holds the rest.
       */
      messages: Message[]
      shared?: number
      options: TracedOptions
    }
  | {
      type: 'model-chunk'
      /** Position of the chunk in this model response, from 0. */
      index: number
      text: string
      toolCalls?: ToolCall[]
      finishReason?: string
      usage?: Usage
    }
  | {
      type: 'model-response'
      text: string
      toolCalls: ToolCall[]
      finishReason?: string
      usage?: Usage
      model?: string
      durationMs: number
      /** Streams only: from the request to the first chunk with content. */
      timeToFirstTokenMs?: number
      /** Completion tokens per second of generation, when the usage is known. */
      tokensPerSecond?: number
      chunks?: number
      /** Extra response metadata (provider ids, thinking, speed figures), masked. */
      metadata?: Record<string, unknown>
    }
  | { type: 'tool-start'; toolCall: ToolCall }
  | { type: 'tool-end'; toolCall: ToolCall; result: string; error?: string; durationMs: number; returnDirect: boolean }
  | {
      type: 'tool-loop-end'
      reason: 'answer' | 'returnDirect' | 'toolCallLimitExceeded' | 'error' | 'aborted'
      rounds: number
    }
  | {
      type: 'validation'
      attempt: number
      valid: boolean
      errors: string[]
      durationMs?: number
      /** The text the model answered with. */
      output?: string
      /** What is appended to the last user message for the next attempt. */
      retryWith?: string
    }
  | { type: 'retry'; attempt: number; error: ErrorInfo; delayMs: number }
  | { type: 'evaluation'; attempt: number; score: number; passed: boolean; feedback?: string }
  | {
      type: 'approval'
      phase: 'requested' | 'decided'
      toolCall: ToolCall
      decision?: 'approve' | 'edit' | 'reject'
      detail?: string
    }
  | { type: 'error'; error: ErrorInfo; aborted: boolean }
  /** `level: 'warning'` when an advisor had to repair something (memory dropped an orphan tool call). */
  | { type: 'note'; message: string; data?: Record<string, unknown>; level?: 'warning' }

export type TraceEventType = TraceEventBody['type']

/** One plain-data, versioned event of a run. */
export type TraceEvent = TraceHeader & TraceEventBody

export type TraceEventOf<T extends TraceEventType> = TraceHeader & Extract<TraceEventBody, { type: T }>

/** Where an observer delivers its events: the devtools store, a file, a test. */
export interface TraceSink {
  emit(event: TraceEvent): void
}
