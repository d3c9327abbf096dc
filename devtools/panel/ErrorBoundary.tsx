import { Component, type ErrorInfo, type ReactNode } from 'react'

interface Props {
  children: ReactNode
  /** What failed, in the message. */
  area?: string
  /** The boundary tries again when this changes (e.g. another run or span is selected). */
  resetKey?: string
}

/** A bug in the panel shows a message in the panel; it never takes the host page down. */
export class ErrorBoundary extends Component<Props, { error: Error | undefined; key: string | undefined }> {
  override state: { error: Error | undefined; key: string | undefined } = { error: undefined, key: this.props.resetKey }

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  static getDerivedStateFromProps(props: Props, state: { error: Error | undefined; key: string | undefined }) {
    return props.resetKey === state.key ? null : { error: undefined, key: props.resetKey }
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(
      `advisor-chain devtools: the ${this.props.area ?? 'panel'} failed to render`,
      error,
      info.componentStack,
    )
  }

  override render() {
    if (!this.state.error) return this.props.children
    return (
      <div className="crashed" role="alert">
        <p>
          The {this.props.area ?? 'devtools panel'} hit a bug and stopped: {this.state.error.message}. Your page is not
          affected.
        </p>
        <button type="button" className="secondary" onClick={() => this.setState({ error: undefined })}>
          Try again
        </button>
      </div>
    )
  }
}
