import type { TextTurn } from '../models'
import type { LanguageModelMessage, LanguageModelSession } from './language-model'

interface Entry {
  turns: TextTurn[]
  session: LanguageModelSession
}

/**
 * One session per conversation: a session holds its conversation's turns in the browser, so a
 * prompt that continues a conversation sends only its new turns. Before a session moves on, a
 * clone keeps the state it had, so that a fork (a regenerated answer, an edited last message)
 * continues from there instead of reading the whole conversation again.
 */
export class SessionPool {
  #entries: Entry[] = []

  constructor(
    private readonly create: (
      initialPrompts: LanguageModelMessage[],
      signal?: AbortSignal,
    ) => Promise<LanguageModelSession>,
    private readonly capacity: number,
  ) {}

  /** A session positioned at the longest known start of `turns`, and the turns still to send. */
  async acquire(
    turns: readonly TextTurn[],
    signal?: AbortSignal,
  ): Promise<{ session: LanguageModelSession; input: TextTurn[] }> {
    const best = this.#best(turns)
    let session: LanguageModelSession
    let known: TextTurn[]
    if (best) {
      this.#entries.splice(this.#entries.indexOf(best), 1)
      session = best.session
      known = best.turns
    } else {
      // Everything up to the last reply (and the system turn) starts the session; the rest is the prompt.
      const lastReply = turns.findLastIndex((turn) => turn.role === 'assistant')
      const split = lastReply >= 0 ? lastReply + 1 : turns[0]?.role === 'system' ? 1 : 0
      known = turns.slice(0, split)
      session = await this.create(known.map(message), signal)
    }
    try {
      this.#keep(known, await session.clone({ ...(signal ? { signal } : {}) }))
    } catch {
      // A browser that cannot clone this session: a later fork starts a new one.
    }
    return { session, input: turns.slice(known.length) }
  }

  /** The session that holds the longest known start of `turns`, and the turns still to send, leaving the pool as it is. */
  peek(turns: readonly TextTurn[]): { session: LanguageModelSession; input: TextTurn[] } | undefined {
    const best = this.#best(turns)
    return best && { session: best.session, input: turns.slice(best.turns.length) }
  }

  /** The session after a turn, with the conversation it now holds. */
  release(session: LanguageModelSession, turns: TextTurn[]): void {
    this.#keep(turns, session)
  }

  destroyAll(): void {
    for (const entry of this.#entries.splice(0)) entry.session.destroy()
  }

  #best(turns: readonly TextTurn[]): Entry | undefined {
    let best: Entry | undefined
    for (const entry of this.#entries)
      if (continues(turns, entry.turns)) if (!best || entry.turns.length > best.turns.length) best = entry
    return best
  }

  #keep(turns: TextTurn[], session: LanguageModelSession) {
    const same = this.#entries.findIndex((entry) => sameTurns(entry.turns, turns))
    if (same >= 0) this.#entries.splice(same, 1)[0]!.session.destroy()
    this.#entries.push({ turns, session })
    while (this.#entries.length > this.capacity) this.#entries.shift()!.session.destroy()
  }
}

export function message(turn: TextTurn): LanguageModelMessage {
  return { role: turn.role, content: turn.content }
}

/** Whether `turns` continues `start` with new turns that a prompt may carry (a system turn only starts a session). */
function continues(turns: readonly TextTurn[], start: readonly TextTurn[]): boolean {
  return (
    start.length < turns.length &&
    startsWith(turns, start) &&
    turns.slice(start.length).every((turn) => turn.role !== 'system')
  )
}

function startsWith(turns: readonly TextTurn[], start: readonly TextTurn[]): boolean {
  return start.every((turn, index) => turns[index]?.role === turn.role && turns[index]?.content === turn.content)
}

function sameTurns(a: readonly TextTurn[], b: readonly TextTurn[]): boolean {
  return a.length === b.length && startsWith(a, b)
}
