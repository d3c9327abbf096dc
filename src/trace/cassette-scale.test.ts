import { describe, expect, it } from 'vitest'
import { cassetteFromTrace } from './cassette'
import { sampleRun } from './testing/sample-trace'
import { reconstructMessages } from './file'

describe('cassetteFromTrace at scale', () => {
  it('turns a run of 8,000 rounds into a cassette in linear time', () => {
    const events = sampleRun({ toolRounds: 8_000, chunks: 1 })
    const started = performance.now()
    const cassette = cassetteFromTrace(events)
    const elapsed = performance.now() - started
    expect(cassette.interactions).toHaveLength(8_001)
    expect(cassette.interactions.at(-1)!.request.messages).toHaveLength(2 + 2 * 8_000)
    expect(cassette.interactions[1]!.request.messages).toHaveLength(4)
    // A scan of the whole trace per request took seconds here; one pass takes a fraction of that.
    expect(elapsed).toBeLessThan(2_000)
  })

  it('gives each interaction the full messages its request was sent, as plain data', () => {
    const events = sampleRun({ toolRounds: 3 })
    const requests = events.filter((event) => event.type === 'model-request')
    const cassette = cassetteFromTrace(events)
    expect(cassette.interactions.map((i) => i.request.messages)).toEqual(
      requests.map((request) => reconstructMessages(events, request)),
    )
    expect(JSON.parse(JSON.stringify(cassette))).toEqual(cassette)
    expect(structuredClone(cassette)).toEqual(cassette)
  })

  it('names a request that shares more messages than the run has sent', () => {
    const events = sampleRun({ toolRounds: 1 }).map((event) =>
      event.type === 'model-request' && event.shared ? { ...event, shared: 99 } : event,
    )
    expect(() => cassetteFromTrace(events)).toThrow(
      /^model-request \d+ of run run-1 shares 99 messages but the request before it has 2$/,
    )
  })
})
