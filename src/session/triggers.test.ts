import { describe, expect, it } from 'vitest'
import { userMessage, type Message } from '../core'
import type { CompactionRequest } from './compaction'
import { sessionEvent } from './session'
import { CharacterTokenCountEstimator } from './token-count-estimator'
import { ContextWindowTrigger } from './triggers'

// ContextWindowTrigger reads the model's own count when the model counts, the estimate otherwise.

const request = (text: string, extra: Partial<CompactionRequest> = {}): CompactionRequest => {
  const events = [sessionEvent('s', userMessage(text))]
  return {
    session: { id: 's', createdAt: 0, metadata: {} },
    events,
    currentEventCount: events.length,
    currentTurnCount: 1,
    tokenCountEstimator: new CharacterTokenCountEstimator(),
    contextWindow: 1000,
    ...extra,
  }
}

describe('ContextWindowTrigger', () => {
  const trigger = ContextWindowTrigger.builder().fraction(0.8).build()

  it('fires on the estimate plus the reserved tokens when the model does not count', async () => {
    // 2,000 characters of English: about 500 tokens estimated.
    expect(await trigger.shouldCompact(request('a'.repeat(2000)))).toBe(false)
    expect(await trigger.shouldCompact(request('a'.repeat(2000), { reservedTokens: 400 }))).toBe(true)
  })

  it("prefers the model's own count of the view's prompt, whatever the estimate says", async () => {
    const counted: (readonly Message[])[] = []
    // A byte-level vocabulary: a token a character, four times the estimate.
    const bytes = async (messages: readonly Message[]) => {
      counted.push(messages)
      return messages.reduce((sum, message) => sum + ('text' in message ? message.text.length : 0), 0)
    }
    expect(await trigger.shouldCompact(request('a'.repeat(900), { countTokens: bytes }))).toBe(true)
    expect(counted[0]).toEqual([userMessage('a'.repeat(900))])
    // The count includes what the next request adds, so reservedTokens is not added on top.
    const few = async () => 700
    expect(await trigger.shouldCompact(request('a'.repeat(900), { countTokens: few, reservedTokens: 500 }))).toBe(false)
  })

  it('never fires without a window', async () => {
    const { contextWindow: _window, ...unknown } = request('a'.repeat(9000))
    expect(await trigger.shouldCompact(unknown)).toBe(false)
  })
})
