import { describe, expect, it } from 'vitest'
import { guardedStream } from './guarded-stream'

/** A source that ignores the signal and always has its next item ready. */
async function* deaf() {
  for (let item = 1; ; item++) yield item
}

describe('guardedStream', () => {
  it('rejects the read after an abort that came while no read was pending, even when the source has items ready', async () => {
    const controller = new AbortController()
    const iterator = guardedStream(
      () => deaf(),
      controller.signal,
      (item: number) => item,
    )[Symbol.asyncIterator]()
    expect(await iterator.next()).toEqual({ done: false, value: 1 })
    controller.abort()
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' })
    expect(await iterator.next()).toEqual({ done: true, value: undefined })
  })

  it('never opens the source when the signal was aborted before the first read', async () => {
    const controller = new AbortController()
    controller.abort()
    let opened = false
    const iterator = guardedStream(
      () => ((opened = true), deaf()),
      controller.signal,
      (item: number) => item,
    )[Symbol.asyncIterator]()
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' })
    expect(opened).toBe(false)
  })
})
