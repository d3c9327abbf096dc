/**
 * A state container with the shape of zustand's vanilla store (getState, setState, subscribe,
 * getInitialState), so the devtools need no state library: an app installs only react and react-dom.
 * Its functions need no `this`: pass them around alone (as `useSyncExternalStore(store.subscribe, …)`).
 */
export interface StateStore<T> {
  getState: () => T
  getInitialState: () => T
  /** Merges a part of the state (or what `update` returns for the current state) and tells subscribers, unless nothing changed. */
  setState: (update: Partial<T> | ((state: T) => Partial<T>)) => void
  /** Calls `listener` after each change; returns the function that stops it. */
  subscribe: (listener: (state: T, previous: T) => void) => () => void
}

export function createStateStore<T extends object>(initial: T): StateStore<T> {
  let state = initial
  const listeners = new Set<(state: T, previous: T) => void>()
  return {
    getState: () => state,
    getInitialState: () => initial,
    setState(update) {
      const part = typeof update === 'function' ? update(state) : update
      if (Object.is(part, state)) return
      const previous = state
      state = { ...state, ...part }
      listeners.forEach((listener) => listener(state, previous))
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
