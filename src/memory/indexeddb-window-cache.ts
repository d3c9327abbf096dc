import {
  readWindow,
  recordsIn,
  stateOf,
  systemFirst,
  validEntries,
  type CorruptReport,
  type Entry,
  type LogState,
  type LogStores,
} from './indexeddb-log'
import { WindowCut } from './window-cut'

/** What a page keeps of a conversation's window between reads, good while the conversation's revision stays. */
interface CachedWindow {
  revision: string
  /** Every valid message but the system ones with a seq from `from` up to `next`, oldest first. */
  rest: Entry[]
  from: number
  next: number
  /** The current system messages. */
  system: Entry[]
}

/** Conversations whose window is kept; the least recently read goes first. */
const CONVERSATIONS_KEPT = 16

/**
 * The windows a repository read last, one per conversation: a later read takes only the records
 * appended since (by this tab or another) and cuts the window in memory, so a turn never reads
 * its window again, which an unbounded window makes as long as the conversation. Any change that
 * is not an append gives the conversation a new revision, and the next read reads the window anew.
 * The messages read are shared between reads: the library never changes a message.
 */
export class WindowCache {
  readonly #windows = new Map<string, CachedWindow>()

  async read(stores: LogStores, conversationId: string, maxMessages: number, report: CorruptReport): Promise<Entry[]> {
    const { record, state } = await stateOf(stores, conversationId)
    const revision = record?.revision
    const cached = this.#windows.get(conversationId)
    if (revision !== undefined && cached?.revision === revision && fits(cached, state)) {
      const appended = validEntries(await recordsIn(stores, conversationId, cached.next, state.next), report).filter(
        (entry) => entry.message.role !== 'system',
      )
      const rest = [...cached.rest.slice(firstAtOrAfter(cached.rest, state.start)), ...appended]
      const from = Math.max(cached.from, state.start)
      const window = windowOf(rest, from <= state.start, state, maxMessages, cached.system)
      if (window) {
        this.#remember(conversationId, {
          revision,
          rest: window.rest,
          from: window.from,
          next: state.next,
          system: cached.system,
        })
        return window.entries
      }
    }
    const window = await readWindow(stores, conversationId, state, maxMessages, report)
    if (revision !== undefined)
      this.#remember(conversationId, {
        revision,
        rest: window.entries.filter((entry) => entry.message.role !== 'system').sort((a, b) => a.seq - b.seq),
        from: window.read,
        next: state.next,
        system: window.entries.filter((entry) => entry.message.role === 'system'),
      })
    return window.entries
  }

  clear(): void {
    this.#windows.clear()
  }

  #remember(conversationId: string, window: CachedWindow): void {
    this.#windows.delete(conversationId)
    this.#windows.set(conversationId, window)
    if (this.#windows.size > CONVERSATIONS_KEPT) this.#windows.delete(this.#windows.keys().next().value!)
  }
}

/** Whether the log only grew since the window was kept (and kept its system messages). */
function fits(cached: CachedWindow, state: LogState): boolean {
  return (
    cached.next <= state.next &&
    cached.system.length === state.system.length &&
    cached.system.every((entry, i) => entry.seq === state.system[i])
  )
}

/**
 * The window cut from `rest` (see readWindow: the same rule and order), and what to keep of it.
 * Undefined when the cut may lie before what is kept (`complete` false: older records exist).
 */
function windowOf(
  rest: Entry[],
  complete: boolean,
  state: LogState,
  maxMessages: number,
  system: Entry[],
): { entries: Entry[]; rest: Entry[]; from: number } | undefined {
  const cut = new WindowCut(Math.max(0, maxMessages - state.system.length))
  let found = false
  for (let i = rest.length - 1; i >= 0 && !found; i--) found = !cut.older(rest[i]!.message.role)
  if (!found && !complete) return undefined
  const window = rest.slice(rest.length - cut.kept)
  const inOrder = [...system, ...window].sort((a, b) => a.seq - b.seq)
  const entries = cut.over || state.systemFirst ? systemFirst(inOrder) : inOrder
  return found ? { entries, rest: window, from: window[0]!.seq } : { entries, rest, from: state.start }
}

/** The index of the first entry whose seq is at least `seq` (entries in seq order). */
function firstAtOrAfter(entries: readonly Entry[], seq: number): number {
  let low = 0
  let high = entries.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (entries[middle]!.seq < seq) low = middle + 1
    else high = middle
  }
  return low
}
