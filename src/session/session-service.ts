import type {
  CompactionRequest,
  CompactionResult,
  CompactionStrategy,
  CompactionTrigger,
  TokenCounter,
} from './compaction'
import type { EventFilter } from './event-filter'
import type { CreateSessionRequest, Session, SessionEvent } from './session'
import type { TokenCountEstimator } from './token-count-estimator'

/** What a compaction knows beyond the session: the model's window and what the next request adds. */
export interface CompactionOptions {
  contextWindow?: number
  tokenCountEstimator?: TokenCountEstimator
  reservedTokens?: number
  /** The model's own count of a prompt (see `CompactionRequest.countTokens`). */
  countTokens?: TokenCounter
  signal?: AbortSignal
}

/** Sessions and their event logs (Spring AI's `SessionService`). */
export interface SessionService {
  create(request?: CreateSessionRequest): Promise<Session>
  findById(id: string): Promise<Session | undefined>
  delete(id: string): Promise<void>
  appendEvent(event: SessionEvent): Promise<void>
  /** Appends in one atomic step when the log's version is `expectedVersion`; false (nothing written) when it is not. */
  appendEvents(sessionId: string, events: readonly SessionEvent[], expectedVersion: number): Promise<boolean>
  /** Oldest first; the active view by default. */
  getEvents(sessionId: string, filter?: EventFilter): Promise<SessionEvent[]>
  /** The log's version (its number of events), for `appendEvents`. */
  getEventVersion(sessionId: string): Promise<number>
  /**
   * When `trigger` fires on the active view, appends what `strategy` decides (a boundary and the
   * summary) in one version-checked append; the log is never rewritten.
   */
  compact(
    sessionId: string,
    trigger: CompactionTrigger,
    strategy: CompactionStrategy,
    options?: CompactionOptions,
  ): Promise<CompactionResult>
}

export type { CompactionRequest }
