const clock = globalThis.performance

/** `performance.now()`: monotonic milliseconds since the page or process started. */
export function now(): number {
  return clock.now()
}
