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

describe('turns across tabs', () => {
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
