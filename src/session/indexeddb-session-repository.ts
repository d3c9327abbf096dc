import { IndexedDBConnection, isQuotaExceeded } from '../storage'
import { range, resultOf } from '../memory/indexeddb-log'
import { withBlobAttachments } from '../memory/stored-attachments'
import type { EventFilter } from './event-filter'
import { checkEvents } from './plain-events'
import { SessionError, sessionNotFound } from './session-error'
import type { SessionRepository } from './session-repository'
import { emptyView, isViewState, orderView, viewAfter, type Logged, type ViewState } from './session-view'
import { boundaryOf, failedTurnOf, problemOfEvent, type Session, type SessionEvent } from './session'

const EVENTS = 'events'
const SESSIONS = 'sessions'
export const SESSION_DB_VERSION = 1

interface EventRecord {
  sessionId: string
  seq: number
  event: unknown
}

interface SessionRecord {
  id: string
  session: Session
  view: ViewState
}

interface Stores {
  events: IDBObjectStore
  sessions: IDBObjectStore
}

/** A stored record that is not a valid event: it is skipped, the rest are read. */
export interface CorruptEvent {
  sessionId: string
  seq: number
  reason: string
}

export interface IndexedDBSessionRepositoryOptions {
  /** The database's name. */
  name: string
  /** Told about each stored record that is not a valid event (default: a console warning). */
  onCorruptEvent?: (record: CorruptEvent) => void
  /** Another IndexedDB (tests); default the page's. */
  indexedDB?: IDBFactory
}

/**
 * Sessions in the browser's IndexedDB, one record per event, appended and never rewritten. Beside
 * each session a small view state (where the active view starts, its pinned events) is written in
 * the same transaction as the events, so the view is read in one range whatever the log's length.
 * Each append is one transaction, all or nothing; a version-checked append is atomic across tabs.
 * Failures are SessionErrors (`quota` when the site's storage is full).
 */
export class IndexedDBSessionRepository implements SessionRepository {
  readonly name: string
  readonly #options: IndexedDBSessionRepositoryOptions
  readonly #connection: IndexedDBConnection

  constructor(options: IndexedDBSessionRepositoryOptions) {
    if (typeof options?.name !== 'string' || options.name === '')
      throw new TypeError(`IndexedDBSessionRepository needs a database name: { name: 'my-app-sessions' }`)
    this.name = options.name
    this.#options = options
    this.#connection = new IndexedDBConnection({
      factory: options.indexedDB,
      name: this.name,
      version: SESSION_DB_VERSION,
      upgrade: (db) => {
        db.createObjectStore(EVENTS, { keyPath: ['sessionId', 'seq'] })
        db.createObjectStore(SESSIONS, { keyPath: 'id' })
      },
      instead: 'use InMemorySessionRepository',
    })
  }

  save(session: Session): Promise<Session> {
    return this.#run(session.id, 'readwrite', async (stores) => {
      const record = (await resultOf(stores.sessions.get(session.id))) as SessionRecord | undefined
      const view = record && isViewState(record.view) ? record.view : emptyView()
      stores.sessions.put({ id: session.id, session, view } satisfies SessionRecord)
      return session
    })
  }

  findById(sessionId: string): Promise<Session | undefined> {
    return this.#run(sessionId, 'readonly', async (stores) => (await this.#record(stores, sessionId))?.session)
  }

  delete(sessionId: string): Promise<void> {
    return this.#run(sessionId, 'readwrite', async (stores) => {
      stores.events.delete(range(sessionId))
      stores.sessions.delete(sessionId)
    })
  }

  appendEvents(sessionId: string, events: readonly SessionEvent[], expectedVersion?: number): Promise<boolean> {
    try {
      checkEvents(sessionId, events)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#run(sessionId, 'readwrite', async (stores) => {
      const record = await this.#existing(stores, sessionId)
      const view = record.view
      if (expectedVersion !== undefined && expectedVersion !== view.next) return false
      const seqs = events.some((event) => boundaryOf(event) ?? failedTurnOf(event))
        ? await this.#seqsInView(stores, sessionId, view)
        : undefined
      const next = viewAfter(view, events, (id) => seqs?.get(id))
      events.forEach((event, index) => {
        const stored = { ...event, message: withBlobAttachments(event.message) }
        stores.events.put({ sessionId, seq: view.next + index, event: stored } satisfies EventRecord)
      })
      stores.sessions.put({ ...record, view: next } satisfies SessionRecord)
      return true
    })
  }

  findEvents(sessionId: string, filter: EventFilter): Promise<SessionEvent[]> {
    return this.#run(sessionId, 'readonly', async (stores) => {
      const { view } = await this.#existing(stores, sessionId)
      if (!filter.excludeArchived)
        return filter.apply(
          this.#valid(sessionId, await this.#records(stores, sessionId, 0, view.next)).map(({ event }) => event),
        )
      const pinned = await Promise.all(
        view.pinned.map(async (pin) => (await resultOf(stores.events.get([sessionId, pin.seq]))) as EventRecord),
      )
      const fromStart = await this.#records(stores, sessionId, view.activeStart, view.next)
      const valid = this.#valid(sessionId, fromStart)
      return filter.apply(
        orderView(
          view,
          this.#valid(sessionId, pinned).map(({ event }) => event),
          valid,
        ),
      )
    })
  }

  getEventVersion(sessionId: string): Promise<number> {
    return this.#run(sessionId, 'readonly', async (stores) => (await this.#existing(stores, sessionId)).view.next)
  }

  /** Closes the connection (it reopens on the next use). */
  close(): Promise<void> {
    return this.#connection.close()
  }

  async #record(stores: Stores, sessionId: string): Promise<SessionRecord | undefined> {
    const record = (await resultOf(stores.sessions.get(sessionId))) as SessionRecord | undefined
    if (record === undefined) return undefined
    if (!isViewState(record.view) || record.session?.id !== sessionId)
      throw new SessionError(
        'failed',
        sessionId,
        `The record of session '${sessionId}' in IndexedDB '${this.name}' is damaged (no valid view state); delete the session (sessionService.delete) and start it again`,
      )
    return record
  }

  async #existing(stores: Stores, sessionId: string): Promise<SessionRecord> {
    const record = await this.#record(stores, sessionId)
    if (!record) throw sessionNotFound(sessionId)
    return record
  }

  async #records(stores: Stores, sessionId: string, from: number, to: number): Promise<EventRecord[]> {
    if (from >= to) return []
    return (await resultOf(stores.events.getAll(range(sessionId, from, to)))) as EventRecord[]
  }

  /** Where each event of the view is, for a boundary to name the first it keeps. */
  async #seqsInView(stores: Stores, sessionId: string, view: ViewState): Promise<Map<string, number>> {
    const records = await this.#records(stores, sessionId, view.activeStart, view.next)
    return new Map(
      records.flatMap((record) =>
        problemOfEvent(record?.event) === undefined ? [[(record.event as SessionEvent).id, record.seq] as const] : [],
      ),
    )
  }

  #valid(sessionId: string, records: readonly (EventRecord | undefined)[]): Logged[] {
    const events: Logged[] = []
    for (const record of records) {
      const problem = problemOfEvent(record?.event)
      if (problem === undefined) events.push({ seq: record!.seq, event: record!.event as SessionEvent })
      else this.#report({ sessionId, seq: typeof record?.seq === 'number' ? record.seq : -1, reason: problem })
    }
    return events
  }

  #report(corrupt: CorruptEvent): void {
    if (this.#options.onCorruptEvent) this.#options.onCorruptEvent(corrupt)
    else console.warn(`Skipped an event of session '${corrupt.sessionId}' (#${corrupt.seq}): ${corrupt.reason}`)
  }

  /** Runs `step` in one transaction; resolves once it commits. A step that throws aborts it: nothing of it is written. */
  #run<T>(sessionId: string, mode: IDBTransactionMode, step: (stores: Stores) => Promise<T>): Promise<T> {
    return this.#connection.transaction(
      [EVENTS, SESSIONS],
      mode,
      (tx) => step({ events: tx.objectStore(EVENTS), sessions: tx.objectStore(SESSIONS) }),
      {
        open: (why, cause) => new SessionError('unavailable', sessionId, why, { cause }),
        refused: (error) => this.#failure(sessionId, error),
        step: (error) =>
          error instanceof SessionError
            ? error
            : error instanceof DOMException
              ? this.#failure(sessionId, error)
              : new SessionError(
                  'failed',
                  sessionId,
                  `A step on session '${sessionId}' failed: ${error instanceof Error ? error.message : String(error)}; nothing of it was written`,
                  { cause: error },
                ),
      },
    )
  }

  #failure(sessionId: string, error: unknown): SessionError {
    const name = error instanceof DOMException ? error.name : 'Error'
    const detail = error instanceof Error && error.message ? `: ${error.message}` : ''
    if (isQuotaExceeded(error))
      return new SessionError(
        'quota',
        sessionId,
        `Session '${sessionId}' could not be saved: the storage quota of this site is used up (QuotaExceededError). Nothing of this step was written; the session is as it was. Free space (delete old sessions with sessionService.delete) or ask for more (navigator.storage.persist()), then send again.`,
        { cause: error },
      )
    if (name === 'DataCloneError')
      return new SessionError(
        'unstorable',
        sessionId,
        `Session '${sessionId}' cannot store an event: it holds a value IndexedDB cannot store${detail}; nothing was written.`,
        { cause: error },
      )
    return new SessionError(
      'failed',
      sessionId,
      `Sessions in IndexedDB '${this.name}' failed for session '${sessionId}' (${name}${detail}); nothing of this step was written. Try again; if it keeps failing, the database may be damaged (delete it in the browser's site data).`,
      { cause: error },
    )
  }
}
