import { isMessage, newId, type Message } from '../core'

/** A conversation's metadata (Spring AI's `Session`); its events live in the repository. */
export interface Session {
  id: string
  /** The user the session belongs to: a request from another user is refused. */
  userId?: string
  createdAt: number
  expiresAt?: number
  metadata: Record<string, unknown>
}

/** One message of a session's append-only log. */
export interface SessionEvent {
  id: string
  sessionId: string
  timestamp: number
  message: Message
  /** The sub-agent that wrote it (dot-separated path, e.g. `orchestrator.researcher`); absent for the root conversation. */
  branch?: string
  metadata?: Record<string, unknown>
}

export interface CreateSessionRequest {
  id?: string
  userId?: string
  ttlMs?: number
  metadata?: Record<string, unknown>
}

/** The advisor param naming the session (the same key as `ChatMemory.CONVERSATION_ID`). */
export const SESSION_ID_KEY = 'chat_memory_conversation_id'
/** The advisor param naming a sub-agent's branch of the session. */
export const SESSION_BRANCH_KEY = 'chat_memory_branch'

/** Metadata of an event written by the library rather than said by the user or the model (a summary, a boundary). */
export const SYNTHETIC = 'synthetic'
/** Metadata naming the strategy that wrote a summary event. */
export const COMPACTION_SOURCE = 'compactionSource'
/** Metadata of the event a compaction appends before its summary: what left the view. */
export const COMPACTION_BOUNDARY = 'compactionBoundary'

/**
 * Metadata of the event appended when a turn failed or was stopped: `{ turn: id of its user message,
 * error }`. The turn stays in the log (nothing the user wrote is lost) but leaves the view, so the
 * next turns are not sent an unanswered question.
 */
export const FAILED_TURN = 'failedTurn'

export interface FailedTurn {
  turn: string
  error: string
}

export function failedTurnOf(event: SessionEvent): FailedTurn | undefined {
  const failed = event.metadata?.[FAILED_TURN] as Partial<FailedTurn> | undefined
  return failed && typeof failed.turn === 'string' && typeof failed.error === 'string'
    ? { turn: failed.turn, error: failed.error }
    : undefined
}

/** What a compaction boundary records (plain data, kept in the log for ever). */
export interface CompactionBoundary {
  /** The first event that stays in the view; `null` when every real event left it. */
  firstKept: string | null
  /** How many events left the view. */
  covered: number
  /** Earlier summary events this compaction's summary replaces. */
  replaced: string[]
  /** The new summary events, appended right after the boundary. */
  summary: string[]
  strategy: string
  tokensBefore: number
  tokensAfter: number
}

export function sessionEvent(
  sessionId: string,
  message: Message,
  extra: { branch?: string | undefined; metadata?: Record<string, unknown> } = {},
): SessionEvent {
  const event: SessionEvent = { id: newId(), sessionId, timestamp: Date.now(), message }
  if (extra.branch !== undefined) event.branch = extra.branch
  if (extra.metadata !== undefined) event.metadata = extra.metadata
  return event
}

export function isSynthetic(event: SessionEvent): boolean {
  return event.metadata?.[SYNTHETIC] === true
}

export function boundaryOf(event: SessionEvent): CompactionBoundary | undefined {
  const boundary = event.metadata?.[COMPACTION_BOUNDARY]
  return isBoundary(boundary) ? boundary : undefined
}

/** A root-level user message that is not a summary: where a turn starts. */
export function isTurnStart(event: SessionEvent): boolean {
  return event.branch === undefined && event.message.role === 'user' && !isSynthetic(event)
}

/** Why a stored value is not a session event, or undefined when it is. */
export function problemOfEvent(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return 'it is not an object'
  const event = value as Partial<Record<keyof SessionEvent, unknown>>
  if (typeof event.id !== 'string' || event.id === '') return 'it has no id'
  if (typeof event.sessionId !== 'string') return 'it has no session id'
  if (typeof event.timestamp !== 'number' || !Number.isFinite(event.timestamp)) return 'it has no timestamp'
  if (!isMessage(event.message)) return 'its message is not a valid message'
  if (event.branch !== undefined && typeof event.branch !== 'string') return 'its branch is not a string'
  if (event.metadata !== undefined && (event.metadata === null || typeof event.metadata !== 'object'))
    return 'its metadata is not an object'
  if (event.metadata && COMPACTION_BOUNDARY in event.metadata && !isBoundary(event.metadata[COMPACTION_BOUNDARY]))
    return 'its compaction boundary is malformed'
  return undefined
}

function isBoundary(value: unknown): value is CompactionBoundary {
  if (value === null || typeof value !== 'object') return false
  const boundary = value as Record<string, unknown>
  const ids = (list: unknown) => Array.isArray(list) && list.every((id) => typeof id === 'string')
  return (
    (boundary['firstKept'] === null || typeof boundary['firstKept'] === 'string') &&
    typeof boundary['covered'] === 'number' &&
    ids(boundary['replaced']) &&
    ids(boundary['summary'])
  )
}
