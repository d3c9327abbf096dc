/**
 * The turn notices of the tabs: a tab says it waits for a conversation (`waitingFor`), and that it
 * waits no more (`leftWaiting`: it took the turn, or gave up); the holder says it holds one
 * (`held`: when it takes the turn, or when a waiter left), and each tab that still waits says so again.
 */
interface TurnNotice {
  waitingFor?: string
  leftWaiting?: string
  held?: string
}

/** What a holding tab hears of the other tabs' waiters. */
export interface WaitersElsewhere {
  /** A tab waits for the conversation. */
  waiting: (conversationId: string) => void
  /** A tab waits no more: the tabs that still wait say so again. */
  left: (conversationId: string) => void
}

/**
 * Turns on the conversations of storage that every tab of the origin shares (an IndexedDB
 * database), one at a time across tabs: a Web Lock per conversation, held as long as the turn. A
 * tab that waits says so on a BroadcastChannel (again whenever the holder asks), and that it waits
 * no more; the holding tab hears both (`waiters`: it tells its reader, see StreamReader). Without
 * Web Locks (an insecure http: page, an old browser, a server) turns are serialized within the page only.
 */
export class CrossTabTurns {
  readonly #held = new Set<string>()
  #channel: BroadcastChannel | undefined

  constructor(
    readonly storageName: string,
    private readonly waiters: WaitersElsewhere,
  ) {}

  /** Whether this browser can hold turns across tabs. */
  static get available(): boolean {
    return typeof navigator !== 'undefined' && navigator.locks !== undefined
  }

  /** Waits for the conversation's turn across tabs; resolves with what gives it back. */
  async acquire(conversationId: string, signal: AbortSignal | undefined): Promise<() => void> {
    if (!CrossTabTurns.available) return () => {}
    const name = `advisor-chain ${this.storageName} ${conversationId}`
    const free = await this.#request(name, { ifAvailable: true })
    const release = free ?? (await this.#wait(name, conversationId, signal))
    this.#hold(conversationId)
    return () => {
      this.#letGo(conversationId)
      release()
    }
  }

  /** The lock, held until the returned function is called; undefined when `ifAvailable` found it taken. */
  #request(name: string, options: LockOptions): Promise<(() => void) | undefined> {
    return new Promise((granted, refused) => {
      let release!: () => void
      const held = new Promise<void>((resolve) => (release = resolve))
      navigator.locks
        .request(name, options, (lock) => {
          if (!lock) return granted(undefined)
          granted(release)
          return held
        })
        .catch(refused)
    })
  }

  async #wait(name: string, conversationId: string, signal: AbortSignal | undefined): Promise<() => void> {
    const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(this.#channelName)
    const notice = () => channel?.postMessage({ waitingFor: conversationId } satisfies TurnNotice)
    // A tab that took the turn as this one asked had no channel open yet to hear it.
    if (channel)
      channel.onmessage = (event: MessageEvent<TurnNotice>) => {
        if (event.data?.held === conversationId) notice()
      }
    notice()
    try {
      return (await this.#request(name, signal ? { signal } : {}))!
    } finally {
      channel?.postMessage({ leftWaiting: conversationId } satisfies TurnNotice)
      channel?.close()
    }
  }

  /**
   * Asks the tabs that wait for a conversation this tab holds to say so again: its own waiters
   * left, and its reader must still hear of theirs.
   */
  askWaiters(conversationId: string): void {
    if (this.#held.has(conversationId)) this.#channel?.postMessage({ held: conversationId } satisfies TurnNotice)
  }

  // The channel is open only while this tab holds a turn: an open one would keep the page out of the back/forward cache.
  #hold(conversationId: string): void {
    this.#held.add(conversationId)
    if (typeof BroadcastChannel === 'undefined') return
    if (!this.#channel) {
      this.#channel = new BroadcastChannel(this.#channelName)
      this.#channel.onmessage = (event: MessageEvent<TurnNotice>) => {
        const { waitingFor, leftWaiting } = event.data ?? {}
        if (typeof waitingFor === 'string' && this.#held.has(waitingFor)) this.waiters.waiting(waitingFor)
        if (typeof leftWaiting === 'string' && this.#held.has(leftWaiting)) this.waiters.left(leftWaiting)
      }
    }
    this.#channel.postMessage({ held: conversationId } satisfies TurnNotice)
  }

  #letGo(conversationId: string): void {
    this.#held.delete(conversationId)
    if (this.#held.size > 0) return
    this.#channel?.close()
    this.#channel = undefined
  }

  get #channelName(): string {
    return `advisor-chain turns ${this.storageName}`
  }
}
