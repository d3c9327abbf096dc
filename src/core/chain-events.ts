import type { Advisor } from './advisor'
import type { ToolCall } from './messages'
import type { ToolSource } from './tool'
import { thrownMessage } from './thrown'

/** A plain description of an error, safe to put in a trace. */
export interface ErrorInfo {
  name: string
  message: string
  status?: number
  code?: string
}

/** A tool call starting, as the tool calling manager and the tool loop report it. */
export interface ToolExecutionStart {
  toolCall: ToolCall
  /** `performance.now()` when it started, so a listener need not read the clock again. */
  at?: number
  source?: ToolSource
}

/** A tool call ended: its response text, and how it went. */
export interface ToolExecutionEnd {
  toolCall: ToolCall
  result: string
  /** Set when the result is an `Error:` response or the tool threw. */
  error?: string
  /** The call's own time, after its setup. */
  durationMs: number
  returnDirect: boolean
  /** `performance.now()` when it ended. */
  at?: number
  /** Preparing the call before it ran (see `ToolCallback.prepare`), when that took time. */
  setupMs?: number
  source?: ToolSource
  /** What the tool reported about the call (`ToolContext.report`). */
  detail?: Record<string, unknown>
}

/**
 * What recursive advisors report about the work they do between model calls, so observers in the
 * chain can see it: tool executions, the end of the tool loop, retries, validation attempts.
 */
export type ChainEvent =
  /** The chain starts a run (a call or a stream): every advisor with its place against the tool loop. */
  | { type: 'run-start'; mode: 'call' | 'stream'; advisors: readonly RunAdvisor[] }
  /** The run ended: the call settled, or the stream ended, failed or was left by its reader. */
  | { type: 'run-end'; status: 'ok' | 'error' | 'aborted'; error?: ErrorInfo }
  | {
      type: 'tool-loop-start'
      mode: 'call' | 'stream'
      /** The whole chain the loop runs in, in order, with the loop's own order to tell inside from outside. */
      advisors: Array<{ name: string; order: number }>
      loopOrder: number
    }
  | ({ type: 'tool-execution-start'; round: number } & ToolExecutionStart)
  | ({ type: 'tool-execution-end'; round: number } & ToolExecutionEnd)
  | {
      type: 'tool-loop-end'
      rounds: number
      reason: 'answer' | 'returnDirect' | 'toolCallLimitExceeded' | 'error' | 'aborted'
      error?: ErrorInfo
    }
  | { type: 'retry'; attempt: number; error: ErrorInfo; delayMs: number }
  | {
      type: 'validation-attempt'
      attempt: number
      valid: boolean
      errors: string[]
      durationMs?: number
      /** The text the model answered with. */
      output?: string
      /** What is appended to the last user message for the next attempt. */
      retryWith?: string
    }
  | { type: 'evaluation'; attempt: number; score: number; passed: boolean; feedback?: string }
  | ({ type: 'escalation' } & Escalation)
  | {
      type: 'approval'
      /** `requested`: waiting for the user; `decided`: the user answered. */
      phase: 'requested' | 'decided'
      round: number
      toolCall: ToolCall
      decision?: 'approve' | 'edit' | 'reject'
      /** The edited arguments, or what the user said when rejecting. */
      detail?: string
    }
  | { type: 'note'; advisor: string; message: string; data?: Record<string, unknown>; level?: 'warning' }
  | ({ type: 'retrieval' } & Retrieval)
  | ({ type: 'compaction' } & Compaction)

/** Why a round left the client's model for the fallback (EscalationAdvisor). */
export type EscalationReason = 'unavailable' | 'context-full' | 'invalid-output' | 'error' | 'slow' | 'rejected'

/** A round that went again to the fallback model: the two models by name, and why. */
export interface Escalation {
  /** The model that failed the round: the id its answer named, else its provider. */
  from: string
  /** The fallback: its model id when it names one, else its provider. */
  to: string
  reason: EscalationReason
  /** What was wrong with the local answer or call, in words (an error's message, the validation errors). */
  detail?: string
  /** Chunks of the local answer had been streamed: the round starts over. */
  restarted?: boolean
}

/** A session's view compacted (SessionMemoryAdvisor): what left it, what replaced it, and why. */
export interface Compaction {
  sessionId: string
  /** The trigger that fired ('context-window', 'turn-count', ...), or why the view had to fit ('fit-to-window'). */
  trigger: string
  strategy: string
  /** Events that left the view, and those kept. */
  covered: number
  preserved: number
  /** The messages that left the view, oldest first, each as `role: excerpt` (COMPACTION_EXCERPT_LENGTH characters at most). */
  left: string[]
  /** The summary that took their place ('' for a plain window). */
  summary: string
  tokensSaved: number
  /** The view's estimated tokens before and after. */
  tokensBefore?: number
  tokensAfter?: number
}

/** How much of each message that left a session's view a trace keeps. */
export const COMPACTION_EXCERPT_LENGTH = 200

/** An advisor of a run's chain, and where it sits: before the tool loop, the loop itself, or inside it (every round). */
export interface RunAdvisor {
  name: string
  order: number
  placement: 'outside-loop' | 'tool-loop' | 'inside-loop'
}

/** Documents looked up for a request (a QuestionAnswerAdvisor), with their similarity scores. */
export interface Retrieval {
  query: string
  /** Each text an excerpt: what a trace keeps to recognise the passage (RETRIEVAL_EXCERPT_LENGTH). */
  documents: Array<{ id: string; score: number; text: string; metadata?: Record<string, unknown> }>
  topK: number
  /** Finite when given. */
  minScore?: number
  durationMs: number
}

/** How much of a retrieved document's text a trace keeps. */
export const RETRIEVAL_EXCERPT_LENGTH = 500

/** An advisor that wants to hear about chain events implements this. */
export interface ChainEventListener {
  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>, source: string): void
}

export function isChainEventListener(advisor: unknown): advisor is ChainEventListener {
  return typeof (advisor as Partial<ChainEventListener> | null)?.onChainEvent === 'function'
}

/** Hands `event` to every listener among `advisors`; a listener that throws never breaks the chain. */
export function emitChainEvent(
  advisors: readonly Advisor[],
  event: ChainEvent,
  context: Readonly<Record<string, unknown>>,
  source: string,
): void {
  // An indexed loop: for…of makes an iterator per event, and the tool loop sends two events a tool call.
  for (let i = 0; i < advisors.length; i++) {
    const advisor = advisors[i]!
    if (!isChainEventListener(advisor)) continue
    try {
      advisor.onChainEvent(event, context, source)
    } catch (error) {
      console.error(`Chain event listener '${advisor.name}' failed on '${event.type}'`, error)
    }
  }
}

let session: string | undefined
let counter = 0

/**
 * A short unique id (run ids): random per page or process, then a counter — one call to the
 * random source per session keeps a run cheap. `crypto.randomUUID` needs a secure context, so it
 * is not relied on.
 */
export function newId(): string {
  if (session === undefined) {
    const bytes = new Uint8Array(6)
    crypto.getRandomValues(bytes)
    session = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
  }
  return `${session}${(counter++).toString(36).padStart(4, '0')}`
}

export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const name = readSafely(() => error.name)
    const info: ErrorInfo = { name: typeof name === 'string' ? name : 'Error', message: thrownMessage(error) }
    const status = readSafely(() => (error as Error & { status?: unknown }).status)
    const code = readSafely(() => (error as Error & { code?: unknown }).code)
    if (typeof status === 'number') info.status = status
    if (typeof code === 'string') info.code = code
    return info
  }
  return { name: 'Error', message: thrownMessage(error) }
}

// A user's error may have getters that throw; reading it must not.
function readSafely(read: () => unknown): unknown {
  try {
    return read()
  } catch {
    return undefined
  }
}
