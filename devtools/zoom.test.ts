import { describe, expect, it } from 'vitest'
import { WHOLE_RUN, isWholeRun, liveSpan, pan, zoom } from './zoom'

describe('timeline zoom and pan', () => {
  it('zooms in around the middle by default', () => {
    expect(zoom(WHOLE_RUN, 2)).toEqual({ from: 0.25, to: 0.75 })
  })

  it('keeps the point under the pointer in place', () => {
    const zoomed = zoom({ from: 0.2, to: 0.6 }, 4, 0.25)
    // The pointer was at 0.2 + 0.25 × 0.4 = 0.3 of the run; it still is, a quarter across.
    expect(zoomed.from + 0.25 * (zoomed.to - zoomed.from)).toBeCloseTo(0.3)
    expect(zoomed.to - zoomed.from).toBeCloseTo(0.1)
  })

  it('never zooms out past the whole run, nor in past 1000×', () => {
    expect(zoom({ from: 0.4, to: 0.6 }, 0.01)).toEqual(WHOLE_RUN)
    expect(zoom(WHOLE_RUN, 1e9).to - zoom(WHOLE_RUN, 1e9).from).toBeCloseTo(0.001)
  })

  it('pans by a share of the window and stops at the ends of the run, keeping the width', () => {
    const window = { from: 0.4, to: 0.6 }
    expect(pan(window, 0.5).from).toBeCloseTo(0.5)
    expect(pan(window, 10)).toEqual({ from: expect.closeTo(0.8) as number, to: 1 })
    expect(pan(window, -10)).toEqual({ from: 0, to: expect.closeTo(0.2) as number })
    expect(isWholeRun(pan(WHOLE_RUN, 1))).toBe(true)
  })
})

describe("a running run's axis", () => {
  it('ends at the next round value at or past the time elapsed', () => {
    expect([0, 0.4, 1, 101, 999, 1000, 4100, 61_000].map(liveSpan)).toEqual([1, 1, 1, 125, 1000, 1000, 5000, 80_000])
  })

  it('keeps its length while the run grows into it: 3,000 events over 15 s give about twenty scales', () => {
    const scales = new Set(Array.from({ length: 3000 }, (_, index) => liveSpan(100 + index * 5)))
    expect(scales.size).toBeLessThanOrEqual(25)
  })
})
