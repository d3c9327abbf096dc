import { describe, expect, it } from 'vitest'
import { ConversationQueue, type TurnHolder } from './conversation-queue'

// Two queues on one shared storage name stand for two tabs: Web Locks and BroadcastChannel reach
// across them as they reach across tabs.

let next = 0
const storageName = () => `cross-tab-test-${Date.now()}-${next++}`

/** A streaming turn whose reader says when it is told that a turn waits. */
function holderOf(runId: string) {
  let told!: () => void
  const toldOfWaiter = new Promise<void>((resolve) => (told = resolve))
  const holder: TurnHolder = {
    runId,
    parentRunId: undefined,
    signal: new AbortController().signal,
    runningTools: false,
    toolsEnded: 0,
    stopping: false,
    interrupt: () => {},
    reader: { waitedFor: told },
  }
  return { holder, toldOfWaiter }
}

/** A streaming turn whose reader keeps what it was told, and resolves `heard(waiting)` at the next such notice. */
function listeningHolder(runId: string) {
  const told: boolean[] = []
  let hearing: { waiting: boolean; resolve: () => void } | undefined
  const holder: TurnHolder = {
    ...holderOf(runId).holder,
    reader: {
      waitedFor: (waiting = true) => {
        told.push(waiting)
        if (hearing?.waiting === waiting) hearing.resolve()
      },
    },
  }
  const heard = (waiting: boolean) => new Promise<void>((resolve) => (hearing = { waiting, resolve }))
  return { holder, told, heard }
}

describe('turns across tabs', () => {
  it("keep telling the holder's reader that a turn waits while one waits in another tab, when this tab's waiter leaves", async () => {
    const name = storageName()
    const holding = new ConversationQueue(name)
    const otherTab = new ConversationQueue(name)
    const first = listeningHolder('first')
    const endFirst = await holding.acquire('c', undefined, first.holder)

    const elsewhere = new AbortController()
    let heard = first.heard(true)
    const waitingElsewhere = otherTab
      .acquire('c', elsewhere.signal, holderOf('elsewhere').holder)
      .catch((error: unknown) => error)
    await heard

    const here = new AbortController()
    const waitingHere = holding.acquire('c', here.signal, holderOf('here').holder).catch((error: unknown) => error)
    heard = first.heard(false)
    here.abort()
    await heard
    // The other tab, asked again, says it still waits.
    heard = first.heard(true)
    await heard
    expect(first.told.slice(-2)).toEqual([false, true])
    expect(await waitingHere).toMatchObject({ name: 'AbortError' })

    // The other tab gives up: now no turn waits anywhere.
    heard = first.heard(false)
    elsewhere.abort()
    await heard
    expect(await waitingElsewhere).toMatchObject({ name: 'AbortError' })
    expect(first.told.at(-1)).toBe(false)
    endFirst()
  })

  it("tell the holding tab's reader that a turn waits in another tab, and start that turn once the holder ends", async () => {
    const name = storageName()
    const holding = new ConversationQueue(name)
    const waitingTab = new ConversationQueue(name)
    const first = holderOf('first')
    const endFirst = await holding.acquire('c', undefined, first.holder)
    let started = false
    const second = waitingTab.acquire('c', new AbortController().signal, holderOf('second').holder).then((end) => {
      started = true
      return end
    })
    await first.toldOfWaiter
    expect(started).toBe(false)
    endFirst()
    const endSecond = await second
    expect(started).toBe(true)
    endSecond()
  })
})
