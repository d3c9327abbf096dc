import { useSyncExternalStore } from 'react'
import type { DevtoolsState, DevtoolsStore } from '../store'

/**
 * A slice of the devtools state; the component renders again when it changes (by `Object.is`, so a
 * selector returns a value kept in the state or the store, not a new object each call).
 */
export function useDevtools<T>(store: DevtoolsStore, selector: (state: DevtoolsState) => T): T {
  return useSyncExternalStore(
    store.subscribe,
    () => selector(store.getState()),
    () => selector(store.getInitialState()),
  )
}
