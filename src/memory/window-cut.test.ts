import { describe, expect, it } from 'vitest'
import { assistantMessage, systemMessage, toolResponseMessage, userMessage, type Message } from '../core'
import { windowOf } from './window'

/** The window rule as it was written before the cut was shared (one pass, from the oldest message). */
function referenceWindow(stored: Message[], added: readonly Message[], maxMessages: number): Message[] {
  const newSystem = added.some((message) => message.role === 'system')
  const all = [...(newSystem ? stored.filter((message) => message.role !== 'system') : stored), ...added]
  if (all.length <= maxMessages) return all
  const system = all.filter((message) => message.role === 'system')
  const rest = all.filter((message) => message.role !== 'system')
  const over = Math.max(0, rest.length - Math.max(0, maxMessages - system.length))
  let cut = over
  while (cut < rest.length && rest[cut]!.role !== 'user') cut++
  if (cut === rest.length) cut = rest.findLastIndex((message) => message.role === 'user')
  return [...system, ...rest.slice(Math.max(cut, 0))]
}

/** A seeded generator, so a failure names a conversation that can be replayed. */
function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

function conversation(next: () => number, length: number): Message[] {
  const kinds = [
    () => userMessage(`u${Math.floor(next() * 1000)}`),
    () => assistantMessage('a'),
    () => assistantMessage('', [{ id: 'c', name: 't', arguments: '{}' }]),
    () => toolResponseMessage([{ id: 'c', name: 't', responseData: 'r' }]),
    () => systemMessage('s'),
  ]
  return Array.from({ length }, () => kinds[Math.floor(next() * (next() < 0.9 ? 4 : 5))]!())
}

describe('the window cut read from the newest message back', () => {
  it('keeps the same window as the one-pass rule for 5,000 random conversations, adds and sizes', () => {
    const next = random(29)
    for (let trial = 0; trial < 5000; trial++) {
      const stored = conversation(next, Math.floor(next() * 30))
      const added = conversation(next, Math.floor(next() * 4))
      const maxMessages = 1 + Math.floor(next() * 12)
      expect(windowOf(stored, added, maxMessages), `trial ${trial}`).toEqual(
        referenceWindow(stored, added, maxMessages),
      )
    }
  })
})
