import { startTransition, useEffect, useMemo, useReducer } from 'react'
import { LIVE_FLUSH_MS, type DevtoolsStore } from '../store'
import { useVersion } from './use-version'

/**
 * `performance.now()` as of the panel's latest update: taken when the store tells of new events, or,
 * while `ticking` and no event came for LIVE_FLUSH_MS, at a tick of its own in the next frame, so
 * live bars grow between events without a second stream of renders beside the store's.
 */
export function useNow(store: DevtoolsStore, ticking: boolean): number {
  const version = useVersion(store)
  const [ticks, tick] = useReducer((count: number) => count + 1, 0)
  useEffect(() => {
    if (!ticking) return
    let frame = 0
    // No tick when the store moved on meanwhile: its version renders soon, with the time taken anew.
    const timer = setTimeout(
      () =>
        (frame = requestAnimationFrame(() => {
          if (store.getState().version === version) startTransition(tick)
        })),
      LIVE_FLUSH_MS,
    )
    return () => {
      clearTimeout(timer)
      cancelAnimationFrame(frame)
    }
  }, [store, ticking, version, ticks])
  // Taken again on each update, whichever caused it.
  return useMemo(() => performance.now(), [version, ticks])
}
