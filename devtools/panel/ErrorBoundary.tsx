import { Component, type ErrorInfo, type ReactNode } from 'react'

/** A bug in the panel shows a message in the panel; it never takes the host page down. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | undefined }> {
  override state: { error: Error | undefined } = { error: undefined }

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('advisor-chain devtools failed to render', error, info.componentStack)
  }

  override render() {
    if (!this.state.error) return this.props.children
    return (
      <div className="crashed" role="alert">
        The devtools panel hit a bug and stopped ({this.state.error.message}). Your page is not affected.{' '}
        <button type="button" className="secondary" onClick={() => this.setState({ error: undefined })}>
          Try again
        </button>
      </div>
    )
  }
}
