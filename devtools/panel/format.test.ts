import { describe, expect, it } from 'vitest'
import { axisTicks, duration, durationCompact, tokensShort } from './format'

describe('the time axis', () => {
  it('puts ticks at round steps from zero', () => {
    expect(axisTicks(415, 5)).toEqual([0, 100, 200, 300, 400])
    expect(axisTicks(95_000, 4)).toEqual([0, 20_000, 40_000, 60_000, 80_000])
  })

  it('keeps at least two ticks on a narrow lane', () => {
    expect(axisTicks(475, 2)).toEqual([0, 200, 400])
    expect(axisTicks(0.3, 1)).toEqual([0, 0.2])
  })
})

describe('figures in words', () => {
  it('shows durations with the precision that matters', () => {
    expect([duration(0.25), duration(42.4), duration(1234), duration(75_000), duration(undefined)]).toEqual([
      '0.3 ms',
      '42 ms',
      '1.23 s',
      '1 m 15 s',
      '…',
    ])
  })

  it('has a compact form for the round legend', () => {
    expect([0.01, 4.25, 110.4, 1234, 75_000].map(durationCompact)).toEqual([
      '<0.1ms',
      '4.3ms',
      '110ms',
      '1.2s',
      '1m15s',
    ])
  })

  it('shortens large token counts for the run list', () => {
    expect(tokensShort({ promptTokens: 2_505_000, completionTokens: 2500, totalTokens: 0 })).toBe('2505k→2500 tok')
  })
})
