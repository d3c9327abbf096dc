import { describe, expect, it } from 'vitest'
import { WHOLE_RUN, isWholeRun, pan, zoom } from './zoom'

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
