import type { EventFilter } from './event-filter'
import { checkEvents } from './plain-events'
import { sessionNotFound } from './session-error'
import type { SessionRepository } from './session-repository'
import { emptyView, orderView, viewAfter, type ViewState } from './session-view'
import type { Session, SessionEvent } from './session'

interface Stored {
  session: Session
  log: SessionEvent[]
  seqOf: Map<string, number>
  view: ViewState
}

/** Sessions in this page's memory only (gone on reload). */
export class InMemorySessionRepository implements SessionRepository {
  readonly #sessions = new Map<string, Stored>()

  async save(session: Session): Promise<Session> {
    const stored = this.#sessions.get(session.id)
    if (stored) stored.session = structuredClone(session)
    else
      this.#sessions.set(session.id, {
        session: structuredClone(session),
        log: [],
        seqOf: new Map(),
        view: emptyView(),
      })
    return structuredClone(session)
  }

  async findById(sessionId: string): Promise<Session | undefined> {
    const stored = this.#sessions.get(sessionId)
    return stored && structuredClone(stored.session)
  }

  async delete(sessionId: string): Promise<void> {
    this.#sessions.delete(sessionId)
  }

  async appendEvents(sessionId: string, events: readonly SessionEvent[], expectedVersion?: number): Promise<boolean> {
    const stored = this.#stored(sessionId)
    checkEvents(sessionId, events)
    if (expectedVersion !== undefined && expectedVersion !== stored.view.next) return false
    const copies = events.map((event) => structuredClone(event))
    const view = viewAfter(stored.view, copies, (id) => {
      const seq = stored.seqOf.get(id)
      return seq !== undefined && seq >= stored.view.activeStart ? seq : undefined
    })
    for (const event of copies) {
      stored.seqOf.set(event.id, stored.log.length)
      stored.log.push(event)
    }
    stored.view = view
    return true
  }

  async findEvents(sessionId: string, filter: EventFilter): Promise<SessionEvent[]> {
    const { log, view } = this.#stored(sessionId)
    const events = filter.excludeArchived
      ? orderView(
          view,
          view.pinned.map((pin) => log[pin.seq]!),
          log.slice(view.activeStart).map((event, index) => ({ seq: view.activeStart + index, event })),
        )
      : log
    return filter.apply(events).map((event) => structuredClone(event))
  }

  async getEventVersion(sessionId: string): Promise<number> {
    return this.#stored(sessionId).view.next
  }

  #stored(sessionId: string): Stored {
    const stored = this.#sessions.get(sessionId)
    if (!stored) throw sessionNotFound(sessionId)
    return stored
  }
}
