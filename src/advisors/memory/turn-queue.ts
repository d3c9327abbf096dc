import { callerStream, type ChainEvent, type ChatClientRequest, ROUND_KEY, RUN_ID_KEY } from '../../core'
import { type ChatMemory, ConversationQueue, type TurnHolder } from '../../memory'

// Shared by every advisor on one ChatMemory (or, when its storage is shared with other tabs, on
// that storage), so two clients on one conversation take turns too.
const turns = new WeakMap<ChatMemory, ConversationQueue>()
const sharedTurns = new Map<string, ConversationQueue>()

function turnsOf(memory: ChatMemory): ConversationQueue {
  const shared = memory.sharedStorageName
  if (shared !== undefined) {
    let queue = sharedTurns.get(shared)
    if (!queue) sharedTurns.set(shared, (queue = new ConversationQueue(shared)))
    return queue
  }
  let queue = turns.get(memory)
  if (!queue) turns.set(memory, (queue = new ConversationQueue()))
  return queue
}

/**
 * Turns on one conversation run one after another (two overlapping turns would interleave their
 * messages). Outside the tool loop a turn is one call; inside, it lasts until the loop ends.
 */
export class TurnQueue {
  /** Inside the tool loop a turn spans many rounds: the end of its conversation's turn, by run id. */
  readonly #held = new Map<string, () => void>()
  /** Tools running now, by run id: a turn asked from one of them must not wait for its own run. */
  readonly #toolsRunning = new Map<string, number>()

  constructor(private readonly chatMemory: ChatMemory) {}

  /** Waits for the conversation's turn; returns what ends the turn here, a no-op when the loop's end does it. */
  async start(request: ChatClientRequest, id: string): Promise<() => void> {
    const runId = request.context[RUN_ID_KEY] as string
    const inLoop = typeof request.context[ROUND_KEY] === 'number'
    if (inLoop && this.#held.has(runId)) return () => {}
    const tools = this.#toolsRunning
    const holder: TurnHolder = {
      runId,
      get runningTools() {
        return (tools.get(runId) ?? 0) > 0
      },
      stream: callerStream(request.signal),
    }
    // In this page, then across tabs when the memory's storage is shared with them.
    const endTurn = await turnsOf(this.chatMemory).acquire(id, request.signal, holder)
    if (!inLoop) return endTurn
    this.#held.set(runId, endTurn)
    return () => {}
  }

  /** Follows the loop's tools; at the loop's end, hands back the end of the turn it held, if any. */
  heard(event: ChainEvent, runId: string): (() => void) | undefined {
    if (event.type === 'tool-execution-start' || event.type === 'tool-execution-end') {
      const running = (this.#toolsRunning.get(runId) ?? 0) + (event.type === 'tool-execution-start' ? 1 : -1)
      if (running > 0) this.#toolsRunning.set(runId, running)
      else this.#toolsRunning.delete(runId)
      return undefined
    }
    if (event.type !== 'tool-loop-end') return undefined
    this.#toolsRunning.delete(runId)
    const endTurn = this.#held.get(runId)
    this.#held.delete(runId)
    return endTurn
  }
}
