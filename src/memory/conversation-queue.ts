import { abortError, type CallerStream } from '../core'

/** What the turn that holds a conversation tells the turns that ask for it. */
export interface TurnHolder {
  /** Its run, for messages. */
  readonly runId: string
  /** Whether it runs tools now: a turn that asks then may come from one of them, and would wait for itself. */
  readonly runningTools: boolean
  /** Its caller's stream, when it streams: a reader that left is stopped for the turn that waits. */
  readonly stream: CallerStream | undefined
}

/** A turn asked for a conversation whose turn runs tools: waiting could be waiting for itself. */
export class ConversationBusyError extends Error {
  override readonly name = 'ConversationBusyError'

  constructor(
    readonly conversationId: string,
    holder: TurnHolder,
  ) {
    super(
      `Conversation '${conversationId}' is busy: its turn (run ${holder.runId}) is running tools, and a turn on the same conversation asked from one of them would wait for itself. Give the inner call a conversation of its own (advisorParams({ [ChatMemory.CONVERSATION_ID]: '…' })), or wait for the turn to end.`,
    )
  }
}

/** How often a waiting turn looks whether the stream it waits for is still read. */
const READER_CHECK_MS = 500

/**
 * Runs tasks one after another per conversation id, so two writers never interleave their reads
 * and writes of one conversation (tasks of different conversations still run side by side).
 */
export class ConversationQueue {
  readonly #tails = new Map<string, Promise<unknown>>()
  readonly #holders = new Map<string, TurnHolder>()

  run<T>(conversationId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(conversationId) ?? Promise.resolve()
    const result = previous.then(task, task)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.#tails.set(conversationId, tail)
    // Forget an idle conversation, so the map does not grow with every id ever used.
    void tail.then(() => {
      if (this.#tails.get(conversationId) === tail) this.#tails.delete(conversationId)
    })
    return result
  }

  /**
   * Waits for the conversation's turn and hands back the function that ends it. No wait is silent
   * or without a bound: a turn that asks while the holder runs tools fails at once (it may be one
   * of them); a holder whose caller's stream is no longer read (nothing asked between two checks)
   * is stopped; an abort while waiting rejects with an AbortError, and the turn, when it comes, is
   * given back at once.
   */
  acquire(conversationId: string, signal: AbortSignal | undefined, holder: TurnHolder): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal))
    const busy = this.#holders.get(conversationId)
    if (busy?.runningTools) return Promise.reject(new ConversationBusyError(conversationId, busy))
    return new Promise((granted, refused) => {
      let asked = -1
      const checkReader = () => {
        const stream = this.#holders.get(conversationId)?.stream
        if (stream && !stream.waiting && stream.asked === asked) stream.stop()
        asked = stream?.asked ?? -1
      }
      const check = busy ? setInterval(checkReader, READER_CHECK_MS) : undefined
      const onAbort = () => {
        clearInterval(check)
        refused(abortError(signal))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      void this.run(
        conversationId,
        () =>
          new Promise<void>((release) => {
            clearInterval(check)
            signal?.removeEventListener('abort', onAbort)
            if (signal?.aborted) return release()
            this.#holders.set(conversationId, holder)
            granted(() => {
              if (this.#holders.get(conversationId) === holder) this.#holders.delete(conversationId)
              release()
            })
          }),
      )
    })
  }
}
