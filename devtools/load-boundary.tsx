import { Component, type ReactNode } from 'react'

/**
 * Catches what the panel's own boundary cannot: its code failing to load (a stale chunk after a
 * deploy, a blocked request) or a crash before it mounted. The host page renders on without it.
 */
export class LoadBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError() {
    return { failed: true }
  }

  override componentDidCatch(error: unknown) {
    console.error('advisor-chain devtools could not be loaded; the page goes on without them', error)
  }

  override render() {
    return this.state.failed ? null : this.props.children
  }
}
