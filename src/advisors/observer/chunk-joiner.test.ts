import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ChunkJoiner, type ChunkBody } from './chunk-joiner'

const asIs = { mask: (text: string) => text, maskJoined: (texts: readonly string[]) => texts.join('') }

function joiner() {
  const recorded: ChunkBody[] = []
  return { recorded, joiner: new ChunkJoiner((_round, body) => recorded.push(body), asIs) }
}

describe('ChunkJoiner', () => {
  beforeEach(() => {
    vi.useFakeTimers()
    // The joiner's clock too: on a busy machine the real one may cross a frame within one loop.
    vi.spyOn(performance, 'now').mockImplementation(() => Date.now())
  })
  afterEach(() => {
    vi.restoreAllMocks()
    vi.useRealTimers()
  })

  it('records the joined chunks of a stream that pauses within one frame, also after an event full of chunks and after the timer fired', () => {
    const { recorded, joiner: chunks } = joiner()
    const total = 64 + 1024 + 10
    for (let index = 0; index < total; index++) chunks.add(1, index, 'a')
    expect(recorded.reduce((sum, body) => sum + (body.count ?? 1), 0)).toBe(64 + 1024)
    vi.advanceTimersByTime(16)
    expect(recorded.reduce((sum, body) => sum + (body.count ?? 1), 0)).toBe(total)
    expect(recorded.map((body) => body.text).join('')).toBe('a'.repeat(total))
    expect(vi.getTimerCount()).toBe(0)
    // The next joined event arms a timer of its own.
    for (let index = total; index < total + 5; index++) chunks.add(1, index, 'b')
    vi.advanceTimersByTime(16)
    expect(recorded.at(-1)).toMatchObject({ index: total, count: 5, text: 'bbbbb' })
  })

  it('masks a joined event once, with the texts of all its chunks', () => {
    const maskJoined = vi.fn((texts: readonly string[]) => texts.join('|'))
    const recorded: ChunkBody[] = []
    const chunks = new ChunkJoiner((_round, body) => recorded.push(body), { mask: (text) => text, maskJoined })
    for (let index = 0; index < 70; index++) chunks.add(1, index, String(index))
    chunks.flush()
    expect(maskJoined).toHaveBeenCalledTimes(1)
    expect(recorded.at(-1)).toMatchObject({ index: 64, count: 6, text: '64|65|66|67|68|69' })
  })
})
