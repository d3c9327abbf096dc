import type { EventFilter } from './event-filter'
import type { Session, SessionEvent } from './session'

/** Where sessions and their event logs are kept. Logs are append-only. */
export interface SessionRepository {
  save(session: Session): Promise<Session>
  findById(sessionId: string): Promise<Session | undefined>
  /** Deletes the session and its log. */
  delete(sessionId: string): Promise<void>
  /**
   * Appends `events` in one atomic step. With `expectedVersion`, only when the log's version (its
   * number of events) is that; resolves false, writing nothing, when another writer came first.
   */
  appendEvents(sessionId: string, events: readonly SessionEvent[], expectedVersion?: number): Promise<boolean>
  /** The events that pass `filter`, oldest first (the active view in prompt order: see `orderView`). */
  findEvents(sessionId: string, filter: EventFilter): Promise<SessionEvent[]>
  /** The log's version: the number of events appended to it. */
  getEventVersion(sessionId: string): Promise<number>
}
