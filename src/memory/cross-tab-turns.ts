/** A waiting tab's message to the tab that holds a conversation's turn. */
interface WaitingNotice {
  waitingFor: string
}

/**
 * Turns on the conversations of storage that every tab of the origin shares (an IndexedDB
 * database), one at a time across tabs: a Web Lock per conversation, held as long as the turn. A
 * tab that waits says so every `noticeMs` on a BroadcastChannel, and the holding tab runs
 * `onWaiter` (its "has the reader left?" check). Without Web Locks (an insecure http: page, an old
 * browser, a server) turns are serialized within the page only.
 */
export class CrossTabTurns {
  readonly #held = new Set<string>()
  #channel: BroadcastChannel | undefined

  constructor(
    readonly storageName: string,
    private readonly onWaiter: (conversationId: string) => void,
    private readonly noticeMs: number,
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
    const notice = () => channel?.postMessage({ waitingFor: conversationId } satisfies WaitingNotice)
    notice()
    const noticing = setInterval(notice, this.noticeMs)
    try {
      return (await this.#request(name, signal ? { signal } : {}))!
    } finally {
      clearInterval(noticing)
      channel?.close()
    }
  }

  // The channel is open only while this tab holds a turn: an open one would keep the page out of the back/forward cache.
  #hold(conversationId: string): void {
    this.#held.add(conversationId)
    if (this.#channel || typeof BroadcastChannel === 'undefined') return
    this.#channel = new BroadcastChannel(this.#channelName)
    this.#channel.onmessage = (event: MessageEvent<WaitingNotice>) => {
      const waitingFor = event.data?.waitingFor
      if (typeof waitingFor === 'string' && this.#held.has(waitingFor)) this.onWaiter(waitingFor)
    }
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
