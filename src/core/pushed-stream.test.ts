import { describe, expect, it } from 'vitest'
import { pushedStream, type StreamFeed } from './pushed-stream'

describe('pushedStream', () => {
  /** A pushed stream whose pulls wait until `answer`, with its feed and how often it was pulled and stopped. */
  function pushed() {
    let feed!: StreamFeed<string>
    let answer: (() => void) | undefined
    const calls = { pulls: 0, stops: 0 }
    const stream = pushedStream<string>((given) => {
      feed = given
      return {
        pull: () => (calls.pulls++, new Promise<void>((resolve) => (answer = resolve))),
        stop: () => void calls.stops++,
      }
    })
    return { stream, calls, feed: () => feed, answer: () => answer!() }
  }

  it('hands a push to the read that waits, before the pull it started settles', async () => {
    const { stream, feed, calls } = pushed()
    const read = stream.next()
    feed().push('tool started')
    expect(await read).toEqual({ done: false, value: 'tool started' })
    expect(calls.pulls).toBe(1)
  })

  it('pulls again while a read finds nothing, one pull at a time, and ends when the source ends', async () => {
    const { stream, feed, calls, answer } = pushed()
    const first = stream.next()
    const second = stream.next()
    answer()
    await Promise.resolve()
    feed().push('a')
    feed().push('b')
    expect(await first).toEqual({ done: false, value: 'a' })
    expect(await second).toEqual({ done: false, value: 'b' })
    const third = stream.next()
    feed().end()
    expect(await third).toEqual({ done: true, value: undefined })
    expect(calls.pulls).toBe(2)
  })

  it("fails a read with the pull's error, once", async () => {
    const stream = pushedStream<number>(() => ({ pull: () => Promise.reject(new Error('source broke')) }))
    await expect(stream.next()).rejects.toThrow('source broke')
    expect(await stream.next()).toEqual({ done: true, value: undefined })
  })

  it('drops what was pushed and stops the source when the reader returns; a later pull error is no news', async () => {
    let fail!: (error: Error) => void
    let stops = 0
    let feed!: StreamFeed<number>
    const stream = pushedStream<number>((given) => {
      feed = given
      return { pull: () => new Promise<void>((_, reject) => (fail = reject)), stop: () => void stops++ }
    })
    const pending = stream.next()
    await stream.return!()
    fail(new Error('aborted by the stop'))
    feed.push(1)
    expect(await pending).toEqual({ done: true, value: undefined })
    expect(await stream.next()).toEqual({ done: true, value: undefined })
    expect(stops).toBe(1)
  })
})
