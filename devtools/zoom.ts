// The part of a run's time axis the timeline shows, as fractions of the run's span (0 = its start,
// 1 = its end or now). Zooming keeps the point under the pointer in place; panning keeps the width.

export interface TimeWindow {
  from: number
  to: number
}

export const WHOLE_RUN: TimeWindow = { from: 0, to: 1 }

/** At most 1000× zoom: a 10 s run still shows 10 ms across the lane. */
const MIN_WIDTH = 0.001

/** Zooms by `factor` (>1 in, <1 out) around `anchor`, a position across the window from 0 to 1. */
export function zoom(window: TimeWindow, factor: number, anchor = 0.5): TimeWindow {
  const width = window.to - window.from
  const next = Math.min(1, Math.max(MIN_WIDTH, width / factor))
  const at = window.from + Math.min(1, Math.max(0, anchor)) * width
  return clamp(at - anchor * next, next)
}

/** Moves the window by `delta` of its own width (negative: earlier). */
export function pan(window: TimeWindow, delta: number): TimeWindow {
  const width = window.to - window.from
  return clamp(window.from + delta * width, width)
}

export function isWholeRun(window: TimeWindow): boolean {
  return window.from <= 0 && window.to >= 1
}

function clamp(from: number, width: number): TimeWindow {
  const start = Math.min(Math.max(0, from), 1 - width)
  return { from: start, to: start + width }
}
