import { describe, expect, it, vi } from 'vitest'
import { axisTicks, clock, duration, durationCompact, plural, tokensShort } from './format'

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

describe('formatters built once', () => {
  it('formats counts and clock times as the locale methods do', () => {
    expect(plural(12_345, 'event')).toBe(`${(12_345).toLocaleString()} events`)
    expect(plural(1, 'run')).toBe('1 run')
    const at = Date.UTC(2026, 0, 2, 3, 4, 5)
    expect(clock(at)).toBe(
      new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }),
    )
    expect(clock(undefined)).toBe('')
  })

  it('builds each formatter once, however often it formats', () => {
    // The locale methods build a formatter on every call.
    const perCall = [
      vi.spyOn(Number.prototype, 'toLocaleString'),
      vi.spyOn(Date.prototype, 'toLocaleTimeString'),
      vi.spyOn(Intl, 'DateTimeFormat'),
      vi.spyOn(Intl, 'NumberFormat'),
    ]
    for (let index = 0; index < 50; index++) {
      clock(1_700_000_000_000 + index * 1000)
      plural(index, 'round')
    }
    // Built by the test above already.
    expect(perCall.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0])
    for (const spy of perCall) spy.mockRestore()
  })
})
