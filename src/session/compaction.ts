import type { Message } from '../core'
import type { TokenCountEstimator } from './token-count-estimator'
import { isSynthetic, isTurnStart, type Session, type SessionEvent } from './session'
import { isReal } from './session-view'

/** What a trigger and a strategy are given: the session's active view and what is known of the model. */
export interface CompactionRequest {
  session: Session
  /** The active view, in prompt order (system messages, summaries, then the real events). */
  events: SessionEvent[]
  currentEventCount: number
  /** Root-level user messages in the view (summaries and sub-agents' messages not counted). */
  currentTurnCount: number
  tokenCountEstimator: TokenCountEstimator
  /** The model's window in tokens, when it says (`ChatModel.contextWindow`). */
  contextWindow?: number
  /** Tokens the next request adds to the view (its system prompt, tool definitions, new message). */
  reservedTokens?: number
  /**
   * The model's own count of the prompt these messages make with what the next request adds (its
   * system prompt and tools), when the model counts (`ChatModel.countTokens`); preferred to the
   * estimate plus `reservedTokens`.
   */
  countTokens?: TokenCounter
  signal?: AbortSignal
}

/** Counts the tokens of the prompt some messages would make, as the model itself does. */
export type TokenCounter = (messages: readonly Message[]) => Promise<number>

/** What a strategy decided: which real events leave the view (always whole turns from the oldest on). */
export interface CompactionResult {
  /** True when nothing left the view (nothing was written). */
  readonly unchanged: boolean
  coveredEvents: SessionEvent[]
  /** Events kept whatever the cut: system messages and the summaries that stay. */
  pinnedEvents: SessionEvent[]
  /** Real events that stay in the view. */
  preservedEvents: SessionEvent[]
  /** New summary messages put in front of the view (empty for a plain window). */
  summary: Message[]
  tokensEstimatedSaved: number
  /** The trigger that fired and the strategy that wrote this, for traces. */
  trigger?: string
  strategy?: string
  /** The view's estimated tokens before and after (set once the compaction is written). */
  tokensBefore?: number
  tokensAfter?: number
}

/** Says when a session's view should be compacted. */
export interface CompactionTrigger {
  readonly name?: string
  shouldCompact(request: CompactionRequest): boolean | Promise<boolean>
}

/** Says what leaves the view (and what summary replaces it). */
export interface CompactionStrategy {
  readonly name?: string
  compact(request: CompactionRequest): Promise<CompactionResult>
}

/** A result saying that nothing changes. */
export function unchanged(events: readonly SessionEvent[]): CompactionResult {
  return {
    unchanged: true,
    coveredEvents: [],
    pinnedEvents: events.filter((event) => !isReal(event)),
    preservedEvents: events.filter(isReal),
    summary: [],
    tokensEstimatedSaved: 0,
  }
}

/** The view split at `cut` (an index into its real events), moved forward to the next turn start. */
export async function cutAt(
  request: CompactionRequest,
  cut: number,
  summary: Message[] = [],
  replaceSummaries = false,
): Promise<CompactionResult> {
  const real = request.events.filter(isReal)
  const start = snapToTurnStart(real, cut)
  if (start === 0) return unchanged(request.events)
  const covered = real.slice(0, start)
  const pinned = request.events.filter((event) => !isReal(event) && !(replaceSummaries && isSynthetic(event)))
  return {
    unchanged: false,
    coveredEvents: covered,
    pinnedEvents: pinned,
    preservedEvents: real.slice(start),
    summary,
    tokensEstimatedSaved: Math.max(
      0,
      (await estimateEvents(request.tokenCountEstimator, covered)) -
        (await request.tokenCountEstimator.estimate(summary)),
    ),
  }
}

/**
 * The first index at or after `index` where a turn starts (a root-level user message), or the
 * length: the kept window starts at a whole turn, so a tool call never loses its result.
 */
export function snapToTurnStart(real: readonly SessionEvent[], index: number): number {
  let at = Math.max(0, index)
  while (at < real.length && !isTurnStart(real[at]!)) at++
  return at
}

export async function estimateEvents(estimator: TokenCountEstimator, events: readonly SessionEvent[]): Promise<number> {
  return estimator.estimate(events.map((event) => event.message))
}

export function countTurns(events: readonly SessionEvent[]): number {
  return events.filter(isTurnStart).length
}

/**
 * The index into `real` just after the oldest of the events `counts` picks out that stand beyond
 * the newest `keep` of them (0 when there are no more than `keep`): where a window of the newest
 * `keep` starts, before it moves on to a turn start.
 */
export function keepNewest(
  real: readonly SessionEvent[],
  counts: (event: SessionEvent) => boolean,
  keep: number,
): number {
  const drop = real.filter(counts).length - keep
  if (drop <= 0) return 0
  let seen = 0
  return real.findIndex((event) => counts(event) && ++seen === drop) + 1
}

/** Root events (not a sub-agent's) among the real events. */
export function isRootEvent(event: SessionEvent): boolean {
  return event.branch === undefined
}

export function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`${what} must be a whole number above 0, got ${value}`)
  return value
}
