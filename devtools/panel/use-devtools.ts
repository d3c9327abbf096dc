import { useStore } from 'zustand'
import type { DevtoolsState, DevtoolsStore } from '../store'

/** A slice of the devtools state; the component renders again when it changes. */
export function useDevtools<T>(store: DevtoolsStore, selector: (state: DevtoolsState) => T): T {
  return useStore(store, selector)
}
