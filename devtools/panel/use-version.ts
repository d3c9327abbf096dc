import { startTransition, useEffect, useState } from 'react'
import type { DevtoolsStore } from '../store'

/**
 * The store's version, for what shows the runs. A new version renders as a transition: React renders
 * it in slices, between the page's own work (a click, the next chunk of a stream), instead of in one
 * task, and drops a render that a newer version overtook. What the user does (select, filter, pause)
 * comes through `useDevtools` and shows at once.
 */
export function useVersion(store: DevtoolsStore): number {
  const [version, setVersion] = useState(() => store.getState().version)
  useEffect(() => {
    const follow = (next: number) => startTransition(() => setVersion(next))
    // Events may have come between the first render and this subscription.
    follow(store.getState().version)
    return store.subscribe((state, previous) => {
      if (state.version !== previous.version) follow(state.version)
    })
  }, [store])
  return version
}
