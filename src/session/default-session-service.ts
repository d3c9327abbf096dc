import { newId } from '../core'
import {
  countTurns,
  estimateEvents,
  unchanged,
  type CompactionRequest,
  type CompactionResult,
  type CompactionStrategy,
  type CompactionTrigger,
} from './compaction'
import { EventFilter } from './event-filter'
import { SessionError } from './session-error'
import type { SessionRepository } from './session-repository'
import type { CompactionOptions, SessionService } from './session-service'
import { isReal } from './session-view'
import {
  COMPACTION_BOUNDARY,
  COMPACTION_SOURCE,
  SYNTHETIC,
  boundaryOf,
  isTurnStart,
  sessionEvent,
  type CompactionBoundary,
  type CreateSessionRequest,
  type Session,
  type SessionEvent,
} from './session'
import { CharacterTokenCountEstimator, type TokenCountEstimator } from './token-count-estimator'

/** Two tabs compacting at once: the one that loses reads the view again, this many times at most. */
const COMPACTION_ATTEMPTS = 3

export interface DefaultSessionServiceOptions {
  /** Estimates tokens for triggers and strategies that have no estimator of their own. */
  tokenCountEstimator?: TokenCountEstimator
}

/** A SessionService over a SessionRepository. */
export class DefaultSessionService implements SessionService {
  readonly tokenCountEstimator: TokenCountEstimator

  constructor(
    readonly repository: SessionRepository,
    options: DefaultSessionServiceOptions = {},
  ) {
    this.tokenCountEstimator = options.tokenCountEstimator ?? new CharacterTokenCountEstimator()
  }

  async create(request: CreateSessionRequest = {}): Promise<Session> {
    const now = Date.now()
    const session: Session = {
      id: request.id?.trim() ? request.id : newId(),
      createdAt: now,
      metadata: { ...request.metadata },
    }
    if (request.userId !== undefined) session.userId = request.userId
    if (request.ttlMs !== undefined) session.expiresAt = now + request.ttlMs
    return this.repository.save(session)
  }

  findById(id: string): Promise<Session | undefined> {
    return this.repository.findById(id)
  }

  delete(id: string): Promise<void> {
    return this.repository.delete(id)
  }

  async appendEvent(event: SessionEvent): Promise<void> {
    await this.repository.appendEvents(event.sessionId, [event])
  }

  appendEvents(sessionId: string, events: readonly SessionEvent[], expectedVersion: number): Promise<boolean> {
    return this.repository.appendEvents(sessionId, events, expectedVersion)
  }

  getEvents(sessionId: string, filter: EventFilter = EventFilter.active()): Promise<SessionEvent[]> {
    return this.repository.findEvents(sessionId, filter)
  }

  getEventVersion(sessionId: string): Promise<number> {
    return this.repository.getEventVersion(sessionId)
  }

  async compact(
    sessionId: string,
    trigger: CompactionTrigger,
    strategy: CompactionStrategy,
    options: CompactionOptions = {},
  ): Promise<CompactionResult> {
    const session = await this.repository.findById(sessionId)
    if (!session)
      throw new SessionError('not-found', sessionId, `Session '${sessionId}' does not exist; nothing to compact`)
    let events: SessionEvent[] = []
    for (let attempt = 0; attempt < COMPACTION_ATTEMPTS; attempt++) {
      // The version is read before the view, so a write in between fails the append below.
      const version = await this.repository.getEventVersion(sessionId)
      events = await this.repository.findEvents(sessionId, EventFilter.active())
      const request = this.#request(session, events, options)
      if (!(await trigger.shouldCompact(request))) return unchanged(events)
      const result = await strategy.compact(request)
      if (result.unchanged || result.coveredEvents.length === 0) return unchanged(events)
      checkTurnSafe(result, events, nameOf(strategy))
      const written = await this.#written(request, result, nameOf(strategy))
      const { tokensBefore, tokensAfter } = boundaryOf(written[0]!)!
      if (await this.repository.appendEvents(sessionId, written, version))
        return { ...result, trigger: nameOf(trigger), strategy: nameOf(strategy), tokensBefore, tokensAfter }
    }
    return unchanged(events)
  }

  #request(session: Session, events: SessionEvent[], options: CompactionOptions): CompactionRequest {
    const request: CompactionRequest = {
      session,
      events,
      currentEventCount: events.length,
      currentTurnCount: countTurns(events),
      tokenCountEstimator: options.tokenCountEstimator ?? this.tokenCountEstimator,
    }
    if (options.contextWindow !== undefined) request.contextWindow = options.contextWindow
    if (options.reservedTokens !== undefined) request.reservedTokens = options.reservedTokens
    if (options.countTokens !== undefined) request.countTokens = options.countTokens
    if (options.signal !== undefined) request.signal = options.signal
    return request
  }

  /** The boundary and the summary events, for one append. */
  async #written(request: CompactionRequest, result: CompactionResult, strategy: string): Promise<SessionEvent[]> {
    const { session, tokenCountEstimator } = request
    const summary = result.summary.map((message) =>
      sessionEvent(session.id, message, { metadata: { [SYNTHETIC]: true, [COMPACTION_SOURCE]: strategy } }),
    )
    const kept = new Set(result.pinnedEvents.map((event) => event.id))
    const boundary: CompactionBoundary = {
      firstKept: result.preservedEvents[0]?.id ?? null,
      covered: result.coveredEvents.length,
      replaced: request.events.filter((event) => !isReal(event) && !kept.has(event.id)).map((event) => event.id),
      summary: summary.map((event) => event.id),
      strategy,
      tokensBefore: await estimateEvents(tokenCountEstimator, request.events),
      tokensAfter: await estimateEvents(tokenCountEstimator, [
        ...result.pinnedEvents,
        ...summary,
        ...result.preservedEvents,
      ]),
    }
    const marker = sessionEvent(
      session.id,
      { role: 'system', text: `Compaction: ${boundary.covered} events left the view (${strategy})` },
      { metadata: { [SYNTHETIC]: true, [COMPACTION_BOUNDARY]: boundary } },
    )
    return [marker, ...summary]
  }
}

/** The covered events must be the oldest real events of the view and the kept ones start a turn. */
function checkTurnSafe(result: CompactionResult, events: readonly SessionEvent[], strategy: string): void {
  const real = events.filter(isReal)
  const split = [...result.coveredEvents, ...result.preservedEvents].map((event) => event.id)
  const first = result.preservedEvents[0]
  if (split.length !== real.length || split.some((id, i) => id !== real[i]!.id) || (first && !isTurnStart(first)))
    throw new Error(
      `Compaction strategy '${strategy}' did not split the view at the start of a turn (covered ${result.coveredEvents.length}, kept ${result.preservedEvents.length} of ${real.length} events${first ? `, the first kept is a ${first.message.role} message` : ''}); nothing was written`,
    )
}

function nameOf(thing: { readonly name?: string }): string {
  return thing.name ?? thing.constructor.name
}
