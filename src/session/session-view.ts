import { boundaryOf, failedTurnOf, isSynthetic, type SessionEvent } from './session'

// The active view of a session (what the model sees) is kept as a small state beside the log, so
// reading it costs the view's size, not the log's: the real events from `activeStart` on, and the
// pinned ones (system messages and the current summaries) wherever they are.

export interface ViewState {
  /** The seq the next event gets (also the session's event version). */
  next: number
  /** Real events before this seq left the view. */
  activeStart: number
  /** System messages and current summaries: in the view whatever `activeStart` says. */
  pinned: { seq: number; id: string }[]
  /** Turns that failed, [from, to) seqs: they stay in the log but out of the view. */
  failed: { from: number; to: number }[]
}

/** A logged event and its place in the log. */
export interface Logged {
  seq: number
  event: SessionEvent
}

export const emptyView = (): ViewState => ({ next: 0, activeStart: 0, pinned: [], failed: [] })

/** A real event: said by the user, the model or a tool (not a summary, a boundary or a system message). */
export function isReal(event: SessionEvent): boolean {
  return !isSynthetic(event) && event.message.role !== 'system'
}

/**
 * The state after appending `events` at `state.next` on. `seqOf` finds the seq of an event of the
 * view by id (the first kept event a boundary names). Throws when a boundary names an event that is
 * not in the view: the compaction was computed on another view and must be computed again.
 */
export function viewAfter(
  state: ViewState,
  events: readonly SessionEvent[],
  seqOf: (id: string) => number | undefined,
): ViewState {
  const view: ViewState = {
    next: state.next,
    activeStart: state.activeStart,
    pinned: [...state.pinned],
    failed: [...state.failed],
  }
  for (const event of events) {
    const seq = view.next++
    const failed = failedTurnOf(event)
    if (failed) {
      const from = seqOf(failed.turn)
      if (from !== undefined) view.failed.push({ from, to: seq })
      continue
    }
    const boundary = boundaryOf(event)
    if (boundary) {
      const first = boundary.firstKept === null ? seq : seqOf(boundary.firstKept)
      if (first === undefined || first < view.activeStart)
        throw new Error(
          `The compaction boundary keeps event '${boundary.firstKept}', which is not in the session's view; compact again from the current view`,
        )
      view.activeStart = first
      const replaced = new Set(boundary.replaced)
      view.pinned = view.pinned.filter((pin) => !replaced.has(pin.id))
      view.failed = view.failed.filter((turn) => turn.to > view.activeStart)
      continue
    }
    if (!isReal(event)) view.pinned.push({ seq, id: event.id })
  }
  return view
}

/**
 * The view in the order a prompt wants it: system messages, then summaries, then the real events
 * from the start on, but those of failed turns.
 */
export function orderView(
  state: ViewState,
  pinned: readonly SessionEvent[],
  fromStart: readonly Logged[],
): SessionEvent[] {
  const inFailedTurn = (seq: number) => state.failed.some((turn) => seq >= turn.from && seq < turn.to)
  return [
    ...pinned.filter((event) => event.message.role === 'system'),
    ...pinned.filter((event) => event.message.role !== 'system'),
    ...fromStart.filter(({ seq, event }) => isReal(event) && !inFailedTurn(seq)).map(({ event }) => event),
  ]
}

export function isViewState(value: unknown): value is ViewState {
  if (value === null || typeof value !== 'object') return false
  const { next, activeStart, pinned, failed } = value as Partial<ViewState>
  return (
    Array.isArray(failed) &&
    failed.every((turn) => Number.isSafeInteger(turn?.from) && Number.isSafeInteger(turn.to)) &&
    Number.isSafeInteger(next) &&
    Number.isSafeInteger(activeStart) &&
    activeStart! <= next! &&
    Array.isArray(pinned) &&
    pinned.every((pin) => Number.isSafeInteger(pin?.seq) && typeof pin.id === 'string')
  )
}
