import { describe, expect, it } from 'vitest'
import { lazyIterator } from './lazy-iterator'
import { pickFromStream } from './pick-from-stream'
import { READ_THROUGH, readStep } from './read-through'

async function* numbers(...values: number[]) {
  yield* values
}

async function* failing(after: number[], error: Error) {
  yield* after
  throw error
}

function picking<T, U>(source: AsyncIterable<T>, pick: (item: T) => U | undefined) {
  return pickFromStream(source, pick)[Symbol.asyncIterator]()
}

/** Reads every item through `readStep`, as the abort guard does. */
async function readAll<T>(iterator: AsyncIterator<T>): Promise<T[]> {
  const items: T[] = []
  const onStep = (result: IteratorResult<T>) => {
    if (result.done) return false
    items.push(result.value)
    return true
  }
  const onError = (error: unknown): never => {
    throw error
  }
  while (await readStep(iterator, onStep, onError));
  return items
}

describe('reading through stream layers', () => {
  it('gives what next() gives, through picking and lazy layers', async () => {
    const stacked = () =>
      lazyIterator(async () =>
        picking(
          pickFromStream(numbers(1, 2, 3, 4), (n) => (n === 2 ? undefined : n * 10)),
          (n) => `#${n}`,
        ),
      )
    expect(await readAll(stacked())).toEqual(['#10', '#30', '#40'])
    const byNext: string[] = []
    for await (const item of stacked()) byNext.push(item)
    expect(byNext).toEqual(['#10', '#30', '#40'])
  })

  it('reads a plain iterator with next()', async () => {
    expect(await readAll(numbers(5, 6)[Symbol.asyncIterator]())).toEqual([5, 6])
  })

  it('hands an error of the source to the reader', async () => {
    const iterator = picking(failing([1], new Error('source broke')), (n) => n)
    const errors: unknown[] = []
    const step = await readStep<number, IteratorResult<number> | number>(
      iterator,
      (result) => result,
      (error) => errors.push(error),
    )
    expect(step).toEqual({ done: false, value: 1 })
    await readStep<number, unknown>(
      iterator,
      () => 'unexpected',
      (error) => errors.push(error),
    )
    expect(errors).toEqual([new Error('source broke')])
  })

  it("hands an error a layer's step throws to the reader's error handler, not the reader's step", async () => {
    const iterator = picking(numbers(1), () => {
      throw new Error('pick broke')
    })
    const seen: string[] = []
    await readStep<never, number>(
      iterator,
      () => seen.push('step'),
      (error) => seen.push(`error: ${(error as Error).message}`),
    )
    expect(seen).toEqual(['error: pick broke'])
  })

  it("rejects with what the reader's step throws, as next().then(step) would", async () => {
    const iterator = picking(numbers(1), (n) => n)
    const handled: unknown[] = []
    await expect(
      readStep<number, number>(
        iterator,
        () => {
          throw new Error('reader broke')
        },
        (error) => handled.push(error),
      ),
    ).rejects.toThrow('reader broke')
    expect(handled).toEqual([])
  })

  it('takes a new reader’s step on the next read', async () => {
    const iterator = picking(numbers(1, 2), (n) => n)
    expect(await readStep(iterator, (result) => `first ${result.value}`, String)).toBe('first 1')
    expect(await readStep(iterator, (result) => `second ${result.value}`, String)).toBe('second 2')
  })

  it('offers itself only where a layer maps synchronously', () => {
    expect(READ_THROUGH in picking(numbers(), (n) => n)).toBe(true)
    expect(READ_THROUGH in numbers()).toBe(false)
  })

  it('stops the source when the reader returns early', async () => {
    let stopped = false
    async function* endless(): AsyncGenerator<number> {
      try {
        for (let n = 0; ; n++) yield n
      } finally {
        stopped = true
      }
    }
    const iterator = lazyIterator(async () => picking(endless(), (n) => n))
    expect(
      await readStep(
        iterator,
        (result) => (result.done ? -1 : result.value),
        () => -2,
      ),
    ).toBe(0)
    await iterator.return!()
    expect(stopped).toBe(true)
  })
})
