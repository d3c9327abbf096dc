import { describe, expect, it } from 'vitest'
import { createStateStore } from './state-store'

describe('createStateStore', () => {
  it('merges a part of the state and tells subscribers the new and previous state', () => {
    const store = createStateStore({ count: 0, name: 'a' })
    const heard: Array<[number, number]> = []
    store.subscribe((state, previous) => heard.push([state.count, previous.count]))
    store.setState({ count: 1 })
    store.setState((state) => ({ count: state.count + 1 }))
    expect(store.getState()).toEqual({ count: 2, name: 'a' })
    expect(heard).toEqual([
      [1, 0],
      [2, 1],
    ])
    expect(store.getInitialState()).toEqual({ count: 0, name: 'a' })
  })

  it('tells no one when the update is the state itself, and stops telling a listener that unsubscribed', () => {
    const store = createStateStore({ count: 0 })
    let heard = 0
    const stop = store.subscribe(() => heard++)
    store.setState((state) => state)
    expect(heard).toBe(0)
    store.setState({ count: 1 })
    stop()
    store.setState({ count: 2 })
    expect(heard).toBe(1)
  })
})
