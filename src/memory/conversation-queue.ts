import { abortError, type CallerStream } from '../core'
import { CrossTabTurns } from './cross-tab-turns'

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

/** What the last look at a holder's stream saw. */
interface ReaderLook {
  stream: CallerStream
  asked: number
  at: number
}

/**
 * Runs tasks one after another per conversation id, so two writers never interleave their reads
 * and writes of one conversation (tasks of different conversations still run side by side). With
 * a `sharedStorageName`, turns (`acquire`) also take the conversation across the tabs of the
 * origin (see CrossTabTurns).
 */
export class ConversationQueue {
  readonly #tails = new Map<string, Promise<unknown>>()
  readonly #holders = new Map<string, TurnHolder>()
  readonly #looks = new Map<string, ReaderLook>()
  readonly #crossTab: CrossTabTurns | undefined

  constructor(sharedStorageName?: string) {
    this.#crossTab =
      sharedStorageName === undefined
        ? undefined
        : new CrossTabTurns(sharedStorageName, (id) => this.#checkReader(id), READER_CHECK_MS)
  }

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
   * Waits for the conversation's turn (in this page, then across tabs) and hands back the function
   * that ends it. No wait is silent or without a bound: a turn that asks while the holder in this
   * page runs tools fails at once (it may be one of them); a holder whose caller's stream is no
   * longer read (nothing asked between two looks half a second apart, while a turn waits here or
   * in another tab) is stopped; an abort while waiting rejects with an AbortError, and the turn,
   * when it comes, is given back at once.
   */
  acquire(conversationId: string, signal: AbortSignal | undefined, holder: TurnHolder): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal))
    const busy = this.#holders.get(conversationId)
    if (busy?.runningTools) return Promise.reject(new ConversationBusyError(conversationId, busy))
    return new Promise((granted, refused) => {
      const check = setInterval(() => this.#checkReader(conversationId), READER_CHECK_MS)
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
            const acrossTabs = this.#crossTab?.acquire(conversationId, signal) ?? Promise.resolve(() => {})
            acrossTabs.then(
              (releaseAcrossTabs) => {
                this.#holders.set(conversationId, holder)
                granted(() => {
                  if (this.#holders.get(conversationId) === holder) this.#holders.delete(conversationId)
                  this.#looks.delete(conversationId)
                  releaseAcrossTabs()
                  release()
                })
              },
              (error: unknown) => {
                release()
                refused(signal?.aborted ? abortError(signal) : error)
              },
            )
          }),
      )
    })
  }

  /** Stops the holder's stream when its reader asked for nothing since a look at least half a second ago. */
  #checkReader(conversationId: string): void {
    const stream = this.#holders.get(conversationId)?.stream
    if (!stream) return
    const now = Date.now()
    const look = this.#looks.get(conversationId)
    // Looks from here and from other tabs come in at once: only one every half second counts.
    if (look?.stream === stream && now - look.at < READER_CHECK_MS * 0.8) return
    if (look?.stream === stream && !stream.waiting && stream.asked === look.asked) return stream.stop()
    this.#looks.set(conversationId, { stream, asked: stream.asked, at: now })
  }
}
