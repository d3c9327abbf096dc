import { abortError, callerGaveSignal, signalLineage, signalRuns, type StreamReader } from '../core'
import { CrossTabTurns } from './cross-tab-turns'

/** What a memory advisor does with a turn that asks for a conversation another turn holds. */
export type WhenBusy = 'wait' | 'reject' | 'interrupt'

/** A turn that holds a conversation, or asks for it. */
export interface TurnHolder {
  /** Its run, for messages (undefined when nobody hears the run's events and it has no tool loop). */
  readonly runId: string | undefined
  /** The run whose tool started it, when it is a sub-agent's turn (agentTool). */
  readonly parentRunId: string | undefined
  /** The signal its tools are given (or one following it): a turn asked with a signal that follows it was started inside it. */
  readonly signal: AbortSignal | undefined
  /** Whether it runs tools now. */
  readonly runningTools: boolean
  /** How many of its tool calls have ended so far: a count that moves is a turn that is not stuck. */
  readonly toolsEnded: number
  /** Whether it was stopped (its signal aborted): it gives the conversation back as soon as its stop settles. */
  readonly stopping: boolean
  /** Stops it, for a turn that asks with whenBusy('interrupt'). */
  interrupt(reason: Error): void
  /** The reader of its caller's stream, when it streams: told when a turn waits, so that a reader that left gives the turn back. */
  readonly reader: StreamReader | undefined
}

/**
 * Why a turn was refused: a tool of the running turn asked, one may have (a turn that carries
 * nothing telling where it comes from waited while the running turn's tools kept running), or
 * another turn runs (whenBusy('reject')).
 */
export type BusyReason = 'reentered' | 'maybe-reentered' | 'running'

/** A turn was refused a conversation another turn holds. */
export class ConversationBusyError extends Error {
  override readonly name = 'ConversationBusyError'

  constructor(
    /** The conversation asked for. */
    readonly conversationId: string,
    holder: Pick<TurnHolder, 'runId'>,
    /** Why the turn was refused. */
    readonly reason: BusyReason,
  ) {
    super(busyMessage(conversationId, holder.runId ?? 'without an id', reason))
  }
}

function busyMessage(id: string, run: string, reason: BusyReason): string {
  const ownConversation = `Give the inner call a conversation of its own (advisorParams({ [ChatMemory.CONVERSATION_ID]: '…' }))`
  if (reason === 'reentered')
    return `Conversation '${id}' is busy: a tool of its running turn (run ${run}) asked for a turn on it, which would wait for the turn that waits for the tool. ${ownConversation}.`
  if (reason === 'maybe-reentered')
    return `Conversation '${id}' is busy: its turn (run ${run}) was running tools when this turn asked for it and has run them for ${SELF_WAIT_MS / 1000} s since without one ending, and this turn carries nothing that tells whether one of those tools started it (then it would wait for itself for ever). A tool's call passes the tool's context.signal (.signal(context.signal)), or takes a conversation of its own (advisorParams({ [ChatMemory.CONVERSATION_ID]: '…' })); a turn from elsewhere given a signal of its own (.signal(controller.signal)) waits as long as the running turn takes.`
  return `Conversation '${id}' is busy: another turn (run ${run}) is running on it, and this memory advisor refuses a second one (whenBusy('reject')). Send again when that turn has ended, or build the advisor with whenBusy('wait') to queue turns or whenBusy('interrupt') to stop the running one.`
}

/** Whether `asker` was started inside `holder`: by its run's tools (the run's context or signal passed on), or as its sub-agent. */
function startedInside(asker: TurnHolder, holder: TurnHolder): boolean {
  if (holder.runId !== undefined && (asker.runId === holder.runId || asker.parentRunId === holder.runId)) return true
  if (holder.runId !== undefined && asker.signal !== undefined && signalRuns(asker.signal).includes(holder.runId))
    return true
  return (
    holder.signal !== undefined && asker.signal !== undefined && signalLineage(asker.signal).includes(holder.signal)
  )
}

/** Whether a caller gave the turn its signal: it comes from elsewhere than the tools of a running turn. */
function fromElsewhere(asker: TurnHolder): boolean {
  return asker.signal !== undefined && callerGaveSignal(asker.signal)
}

/**
 * How long a turn that carries nothing telling where it comes from waits behind a turn that runs
 * tools with none ending, before it is refused: it may be one of those tools' own (which no page
 * can tell), and would then wait for itself for ever.
 */
const SELF_WAIT_MS = 10_000

/**
 * Runs tasks one after another per conversation id, so two writers never interleave their reads
 * and writes of one conversation (tasks of different conversations still run side by side). With
 * a `sharedStorageName`, turns (`acquire`) also take the conversation across the tabs of the
 * origin (see CrossTabTurns).
 */
export class ConversationQueue {
  readonly #tails = new Map<string, Promise<unknown>>()
  readonly #holders = new Map<string, TurnHolder>()
  /** Turns waiting, per conversation: the holder's reader is told of them. */
  readonly #waiting = new Map<string, number>()
  readonly #crossTab: CrossTabTurns | undefined

  constructor(sharedStorageName?: string) {
    this.#crossTab =
      sharedStorageName === undefined
        ? undefined
        : new CrossTabTurns(sharedStorageName, {
            waiting: (id) => this.#holders.get(id)?.reader?.waitedFor(),
            left: (id) => this.#noneWaitsHere(id),
          })
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
   * that ends it. A turn started inside the holder (by one of its tools) fails at once: it would
   * wait for itself. Another turn, by `whenBusy`: waits ('wait'), fails ('reject') or stops the
   * holder and waits for its stop to settle ('interrupt'); a holder already stopped is only waited
   * for. A turn that carries no sign of where it comes from (no signal a caller gave), asking while
   * the holder runs tools, waits too, but fails when the holder has run them for SELF_WAIT_MS with
   * none ending: it may be one of them, waiting for itself. No wait is without a bound: the holder's
   * reader is told that a turn waits (here or in another tab), and a reader that left stops its
   * stream (see StreamReader); an abort while waiting rejects with an AbortError, and the turn,
   * when it comes, is given back at once.
   */
  acquire(
    conversationId: string,
    signal: AbortSignal | undefined,
    holder: TurnHolder,
    whenBusy: WhenBusy = 'wait',
  ): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal))
    const busy = this.#holders.get(conversationId)
    if (busy && startedInside(holder, busy))
      return Promise.reject(new ConversationBusyError(conversationId, busy, 'reentered'))
    if (busy && !busy.stopping) {
      if (whenBusy === 'reject') return Promise.reject(new ConversationBusyError(conversationId, busy, 'running'))
      if (whenBusy === 'interrupt')
        busy.interrupt(
          new DOMException(
            `The turn (run ${busy.runId ?? 'without an id'}) on conversation '${conversationId}' was interrupted by a newer turn (whenBusy('interrupt')).`,
            'AbortError',
          ),
        )
    }
    this.#waitFor(conversationId, 1)
    return new Promise((granted, refused) => {
      let gaveUp = false
      let waiting = true
      // Once, however the wait ends (its turn came, an abort, given up): the holder's reader no longer has a turn waiting for it.
      const stopWaiting = () => {
        clearTimeout(selfWait)
        signal?.removeEventListener('abort', onAbort)
        if (waiting) this.#waitFor(conversationId, -1)
        waiting = false
      }
      const onAbort = () => {
        stopWaiting()
        refused(abortError(signal))
      }
      // Watches a holder running tools: stuck (no tool ended) for SELF_WAIT_MS, it may wait for this very turn.
      const watch = (holding: TurnHolder, ended: number): ReturnType<typeof setTimeout> =>
        setTimeout(() => {
          // Another holder, or none of its tools running: the tool this turn may come from has ended.
          if (this.#holders.get(conversationId) !== holding || !holding.runningTools) return
          if (holding.toolsEnded !== ended) return void (selfWait = watch(holding, holding.toolsEnded))
          gaveUp = true
          stopWaiting()
          refused(new ConversationBusyError(conversationId, holding, 'maybe-reentered'))
        }, SELF_WAIT_MS)
      let selfWait = busy?.runningTools && !fromElsewhere(holder) ? watch(busy, busy.toolsEnded) : undefined
      signal?.addEventListener('abort', onAbort, { once: true })
      void this.run(
        conversationId,
        () =>
          new Promise<void>((release) => {
            stopWaiting()
            if (gaveUp || signal?.aborted) return release()
            const acrossTabs = this.#crossTab?.acquire(conversationId, signal) ?? Promise.resolve(() => {})
            acrossTabs.then(
              (releaseAcrossTabs) => {
                this.#holders.set(conversationId, holder)
                if (this.#waiting.has(conversationId)) holder.reader?.waitedFor()
                granted(() => {
                  if (this.#holders.get(conversationId) === holder) this.#holders.delete(conversationId)
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

  /** Counts the turns that wait for the conversation; the holder's reader hears of them. */
  #waitFor(conversationId: string, turns: number): void {
    const waiting = (this.#waiting.get(conversationId) ?? 0) + turns
    if (waiting > 0) {
      this.#waiting.set(conversationId, waiting)
      this.#holders.get(conversationId)?.reader?.waitedFor(true)
    } else {
      this.#waiting.delete(conversationId)
      this.#noneWaitsHere(conversationId)
    }
  }

  /**
   * No turn of this tab waits for the conversation (any more): the holder's reader hears that none
   * waits, unless one does here, and the tabs that still wait (asked again) say so.
   */
  #noneWaitsHere(conversationId: string): void {
    if (this.#waiting.has(conversationId)) return
    this.#holders.get(conversationId)?.reader?.waitedFor(false)
    this.#crossTab?.askWaiters(conversationId)
  }
}
