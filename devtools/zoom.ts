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

/** The steps of a live run's axis in each power of ten: it grows by a quarter at most, now and then. */
const LIVE_STEPS = [1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]

/**
 * The length of a running run's time axis (ms) once `elapsed` ms have passed: the next round value
 * at or past it. The axis keeps its scale while the run grows into it, so a new event moves only the
 * bars that grew, not every bar of the timeline.
 */
export function liveSpan(elapsed: number): number {
  const at = Math.max(elapsed, 1)
  const magnitude = 10 ** Math.floor(Math.log10(at))
  return LIVE_STEPS.find((step) => step * magnitude >= at * (1 - 1e-12))! * magnitude
}
