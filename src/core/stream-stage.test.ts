import { afterEach, describe, expect, it, vi } from 'vitest'
import { guardedStream } from './guarded-stream'
import { streamOf, streamStage, type StreamLayer, type StreamReader } from './stream-stage'

async function* numbers(...values: number[]) {
  yield* values
}

async function* failing(after: number[], error: Error) {
  yield* after
  throw error
}

/** A source that ignores the signal and always has its next item ready. */
async function* deaf() {
  for (let item = 1; ; item++) yield item
}

async function readAll<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of stream) items.push(item)
  return items
}

/** A source whose reads stay pending until `answer`, and which records `return()`. */
function pendingSource() {
  const calls = { returned: 0 }
  let answer: ((result: IteratorResult<number>) => void) | undefined
  const iterator: AsyncIterator<number> = {
    next: () => new Promise((resolve) => (answer = resolve)),
    return: () => {
      calls.returned++
      answer?.({ done: true, value: undefined })
      return Promise.resolve({ done: true, value: undefined })
    },
  }
  return {
    source: { [Symbol.asyncIterator]: () => iterator },
    calls,
    answer: (value: number) => answer!({ done: false, value }),
  }
}

/** Microtask turns until `promise` settles. */
async function turnsUntil(promise: Promise<unknown>): Promise<number> {
  let settled = false
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  let turns = 0
  while (!settled) {
    await Promise.resolve()
    turns++
  }
  return turns
}

describe('streamStage', () => {
  it('maps each chunk, and skips the chunks a layer turns into undefined', async () => {
    const stage = streamStage({
      open: () => numbers(1, 2, 3, 4),
      chunk: (n: number) => (n === 2 ? undefined : `#${n}`),
    })
    expect(await readAll(stage)).toEqual(['#1', '#3', '#4'])
  })

  it('gives the same through stacked stages as through one', async () => {
    const stacked = streamStage({
      open: () => streamStage({ open: () => numbers(1, 2, 3), chunk: (n: number) => n * 10 }),
      chunk: (n: number) => (n === 20 ? undefined : `#${n}`),
    })
    expect(await readAll(stacked)).toEqual(['#10', '#30'])
  })

  it('hands a chunk through any number of stacked stages in as many microtask turns as through one', async () => {
    const stack = (depth: number) => {
      let stream: AsyncIterable<number> = deaf()
      for (let i = 0; i < depth; i++) {
        const below = stream
        stream = streamStage({ open: () => below, chunk: (n: number) => n })
      }
      return stream[Symbol.asyncIterator]()
    }
    const one = stack(1)
    const ten = stack(10)
    await one.next()
    await ten.next()
    expect(await turnsUntil(ten.next())).toBe(await turnsUntil(one.next()))
  })

  it('reads on from the source a layer gives when one ends (the next round)', async () => {
    let round = 0
    const stage = streamStage({
      open: () => numbers(1, 2),
      end: () => (++round < 3 ? { source: numbers(round * 10) } : undefined),
    })
    expect(await readAll(stage)).toEqual([1, 2, 10, 20])
  })

  it('gives the last chunks a layer ends with, then ends', async () => {
    const stage = streamStage<number>({ open: () => numbers(1), end: () => ({ last: [7, 8] }) })
    expect(await readAll(stage)).toEqual([1, 7, 8])
    expect(await readAll(streamOf('a', 'b'))).toEqual(['a', 'b'])
    expect(await readAll(streamOf())).toEqual([])
  })

  it('waits for steps that answer with a promise', async () => {
    const stage = streamStage({
      open: async () => numbers(1, 2, 3),
      chunk: async (n: number) => (n === 2 ? undefined : n + 100),
      end: async () => ({ last: [0] }),
    })
    expect(await readAll(stage)).toEqual([101, 103, 0])
  })

  it('hands an error of the source to the reader after the chunks before it', async () => {
    const seen: number[] = []
    const stage = streamStage({ open: () => failing([1, 2], new Error('source broke')) })
    await expect(
      (async () => {
        for await (const n of stage) seen.push(n)
      })(),
    ).rejects.toThrow('source broke')
    expect(seen).toEqual([1, 2])
  })

  it("sends the errors of the layer's own steps to its fail, once", async () => {
    for (const broken of ['open', 'chunk', 'end'] as const) {
      const failures: string[] = []
      const layer: StreamLayer<number> = {
        open: () => {
          if (broken === 'open') throw new Error('open broke')
          return numbers(1)
        },
        chunk: (n) => {
          if (broken === 'chunk') throw new Error('chunk broke')
          return n
        },
        end: () => {
          if (broken === 'end') throw new Error('end broke')
        },
        fail: (error) => {
          failures.push((error as Error).message)
          throw error
        },
      }
      await expect(readAll(streamStage(layer))).rejects.toThrow(`${broken} broke`)
      expect(failures).toEqual([`${broken} broke`])
    }
  })

  it('recovers from a failure with the source its fail gives (a retry)', async () => {
    let attempts = 0
    const open = () => (++attempts < 3 ? failing([], new Error('overloaded')) : numbers(5))
    const stage = streamStage<number>({ open, fail: () => ({ source: open() }) })
    expect(await readAll(stage)).toEqual([5])
    expect(attempts).toBe(3)
  })

  it('stops the source at once when the reader returns, even while a read is pending', async () => {
    const { source, calls } = pendingSource()
    let stopped = 0
    const stage = streamStage({ open: () => source, stop: () => stopped++ })
    const pending = stage.next()
    await Promise.resolve()
    await stage.return!()
    expect(calls.returned).toBe(1)
    expect(stopped).toBe(1)
    expect(await pending).toEqual({ done: true, value: undefined })
    expect(await stage.next()).toEqual({ done: true, value: undefined })
  })

  it('stops a source that opens after the reader returned, and ends', async () => {
    const { source, calls } = pendingSource()
    let open!: () => void
    const stage = streamStage({ open: () => new Promise<typeof source>((resolve) => (open = () => resolve(source))) })
    const pending = stage.next()
    await stage.return!()
    open()
    expect(await pending).toEqual({ done: true, value: undefined })
    expect(calls.returned).toBe(1)
  })
})

describe('the reader of a stage, while another turn waits', () => {
  afterEach(() => vi.useRealTimers())

  /** A stage over an endless source, the reader its layer is told of, and how often it was stopped. */
  function watched() {
    let reader: StreamReader | undefined
    const stopped = { count: 0 }
    const stage = streamStage({
      open: (given) => ((reader = given), deaf()),
      stop: () => stopped.count++,
    })
    return { stage, stopped, reader: () => reader! }
  }

  it('stops the stream when the reader asks for nothing half a second after a turn waits (it dropped the iterator)', async () => {
    vi.useFakeTimers()
    const { stage, stopped, reader } = watched()
    await stage.next()
    reader().waitedFor()
    vi.advanceTimersByTime(499)
    expect(stopped.count).toBe(0)
    vi.advanceTimersByTime(1)
    expect(stopped.count).toBe(1)
    expect(await stage.next()).toEqual({ done: true, value: undefined })
  })

  it('keeps a stream whose reader goes on asking', async () => {
    vi.useFakeTimers()
    const { stage, stopped, reader } = watched()
    await stage.next()
    reader().waitedFor()
    for (let read = 0; read < 5; read++) {
      vi.advanceTimersByTime(400)
      expect((await stage.next()).done).toBe(false)
    }
    expect(stopped.count).toBe(0)
  })

  it('never stops a stream nobody waits for, however slow its reader', async () => {
    vi.useFakeTimers()
    const { stage, stopped } = watched()
    await stage.next()
    vi.advanceTimersByTime(60_000)
    expect(stopped.count).toBe(0)
    expect((await stage.next()).done).toBe(false)
  })
})

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

  it('rejects a pending read the moment the signal aborts, though the source never answers', async () => {
    const controller = new AbortController()
    const { source } = pendingSource()
    const iterator = guardedStream(
      () => source,
      controller.signal,
      (item: number) => item,
    )[Symbol.asyncIterator]()
    const pending = iterator.next()
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })

  it("aborts the chain's signal when the caller stops early or the stream fails, and lets the failure through", async () => {
    let signal: AbortSignal | undefined
    const stopped = guardedStream(
      (given) => ((signal = given), deaf()),
      undefined,
      (item: number) => item,
    )
    for await (const _ of stopped) break
    expect(signal?.aborted).toBe(true)
    const failed = guardedStream(
      (given) => ((signal = given), failing([], new Error('broken'))),
      undefined,
      (n: number) => n,
    )
    await expect(readAll(failed)).rejects.toThrow('broken')
    expect(signal?.aborted).toBe(true)
  })
})
