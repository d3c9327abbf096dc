import {
  AGENT_CALL_KEY,
  abortError,
  contextValue,
  followingSignal,
  internalSignal,
  type ChainEvent,
  type ChatClientRequest,
  READER_KEY,
  ROUND_KEY,
  RUN_ID_KEY,
} from '../../core'
import { type ChatMemory, ConversationQueue, type TurnHolder, type WhenBusy } from '../../memory'
import type { SessionService } from '../../session'

// Shared by every advisor on one ChatMemory or SessionService (or, when its storage is shared with
// other tabs, on that storage), so two clients on one conversation take turns too.
const turns = new WeakMap<object, ConversationQueue>()
const sharedTurns = new Map<string, ConversationQueue>()

function turnsOf(store: ChatMemory | SessionService): ConversationQueue {
  const shared = 'sharedStorageName' in store ? store.sharedStorageName : undefined
  if (shared !== undefined) {
    let queue = sharedTurns.get(shared)
    if (!queue) sharedTurns.set(shared, (queue = new ConversationQueue(shared)))
    return queue
  }
  let queue = turns.get(store)
  if (!queue) turns.set(store, (queue = new ConversationQueue()))
  return queue
}

/** A turn that holds its conversation: the request to pass on (its signal also stops on an interrupt), and what ends the turn here. */
export interface HeldTurn {
  readonly request: ChatClientRequest
  readonly end: () => void
}

/** A turn held across the rounds of its tool loop. */
interface LoopTurn {
  readonly end: () => void
  readonly interrupted: AbortSignal
}

/**
 * Turns on one conversation run one after another (two overlapping turns would interleave their
 * messages). Outside the tool loop a turn is one call; inside, it lasts until the loop ends.
 */
export class TurnQueue {
  /** Inside the tool loop a turn spans many rounds: its end and its interrupt, by run id. */
  readonly #held = new Map<string, LoopTurn>()
  /** Tools running now, by run id. */
  readonly #toolsRunning = new Map<string, number>()
  /** Tool calls ended so far, by run id. */
  readonly #toolsEnded = new Map<string, number>()

  constructor(
    /** Where the conversations are kept: turns on one store take turns, whichever advisor runs them. */
    private readonly store: ChatMemory | SessionService,
    private readonly whenBusy: WhenBusy,
  ) {}

  /** Waits for the conversation's turn; `end` is a no-op when the loop's end ends the turn. */
  async start(request: ChatClientRequest, id: string): Promise<HeldTurn> {
    const runId = request.context[RUN_ID_KEY] as string | undefined
    const inLoop = typeof request.context[ROUND_KEY] === 'number'
    const held = inLoop && runId !== undefined ? this.#held.get(runId) : undefined
    if (held) {
      // Interrupted between two rounds (a tool was running): the loop ends here.
      if (held.interrupted.aborted) throw abortError(held.interrupted)
      return { request: following(request, held.interrupted), end: () => {} }
    }
    const interrupter = new AbortController()
    const interrupted = internalSignal(interrupter)
    const advised = following(request, interrupted)
    const tools = this.#toolsRunning
    const ended = this.#toolsEnded
    const holder: TurnHolder = {
      runId,
      parentRunId: contextValue(request.context, AGENT_CALL_KEY)?.parentRunId,
      // Outside the loop the tools follow this turn's own signal; inside, the loop's.
      signal: inLoop ? request.signal : advised.signal,
      get runningTools() {
        return runId !== undefined && (tools.get(runId) ?? 0) > 0
      },
      get toolsEnded() {
        return runId === undefined ? 0 : (ended.get(runId) ?? 0)
      },
      get stopping() {
        return advised.signal?.aborted === true
      },
      interrupt: (reason) => interrupter.abort(reason),
      reader: contextValue(request.context, READER_KEY),
    }
    // In this page, then across tabs when the memory's storage is shared with them.
    const endTurn = await turnsOf(this.store).acquire(id, request.signal, holder, this.whenBusy)
    if (!inLoop || runId === undefined) return { request: advised, end: endTurn }
    this.#held.set(runId, { end: endTurn, interrupted })
    return { request: advised, end: () => {} }
  }

  /** Follows the loop's tools; at the loop's end, hands back the end of the turn it held, if any. */
  heard(event: ChainEvent, runId: string): (() => void) | undefined {
    if (event.type === 'tool-execution-start' || event.type === 'tool-execution-end') {
      const running = (this.#toolsRunning.get(runId) ?? 0) + (event.type === 'tool-execution-start' ? 1 : -1)
      if (running > 0) this.#toolsRunning.set(runId, running)
      else this.#toolsRunning.delete(runId)
      if (event.type === 'tool-execution-end') this.#toolsEnded.set(runId, (this.#toolsEnded.get(runId) ?? 0) + 1)
      return undefined
    }
    if (event.type !== 'tool-loop-end') return undefined
    this.#toolsRunning.delete(runId)
    this.#toolsEnded.delete(runId)
    const held = this.#held.get(runId)
    this.#held.delete(runId)
    return held?.end
  }
}

/** The request with a signal that also aborts on `interrupted`. */
function following(request: ChatClientRequest, interrupted: AbortSignal): ChatClientRequest {
  const signal = request.signal ? followingSignal([request.signal, interrupted]) : interrupted
  return { ...request, signal }
}
