import { describe, expect, it } from 'vitest'
import { lazyIterator } from './lazy-iterator'
import { AGGREGATOR, aggregatorOf } from './read-through'
import { ChatResponseAggregator } from './stream'

async function* numbers(log: string[]) {
  try {
    yield 1
    yield 2
  } finally {
    log.push('closed')
  }
}

describe('lazyIterator', () => {
  it('loads once, on the first call, and then yields what the loaded iterator yields', async () => {
    let loads = 0
    const iterator = lazyIterator(async () => (loads++, numbers([])))
    expect(loads).toBe(0)
    const [first, second] = await Promise.all([iterator.next(), iterator.next()])
    expect([first.value, second.value, loads]).toEqual([1, 2, 1])
    expect(await iterator.next()).toEqual({ done: true, value: undefined })
  })

  it('passes an early stop to the loaded iterator, also before the first chunk', async () => {
    const log: string[] = []
    const started = lazyIterator(async () => numbers(log))
    for await (const value of started) if (value === 1) break
    expect(log).toEqual(['closed'])
    const calls: string[] = []
    const unstarted = lazyIterator<number>(async () => ({
      next: async () => ({ done: true, value: undefined }),
      return: async () => (calls.push('return'), { done: true, value: undefined }),
    }))
    expect(await unstarted.return!()).toEqual({ done: true, value: undefined })
    expect(calls).toEqual(['return'])
  })

  it('offers the aggregator of the loaded iterator once it is loaded', async () => {
    const aggregator = new ChatResponseAggregator()
    const aggregating = Object.assign(numbers([]), { [AGGREGATOR]: () => aggregator })
    const iterator = lazyIterator(async () => aggregating)
    expect(aggregatorOf(iterator)).toBeUndefined()
    await iterator.next()
    expect(aggregatorOf(iterator)).toBe(aggregator)
    const plain = lazyIterator(async () => numbers([]))
    await plain.next()
    expect(aggregatorOf(plain)).toBeUndefined()
  })
})
