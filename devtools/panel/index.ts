import { createElement, memo, type JSX } from 'react'
import { AdvisorDevtools as Floating, type AdvisorDevtoolsProps } from './AdvisorDevtools'
import { AdvisorDevtoolsPanel as Embedded, type DevtoolsPanelProps } from './DevtoolsPanel'

export type { AdvisorDevtoolsProps, DevtoolsPanelProps }

// The page re-renders the component that holds the devtools (on every chunk of a streaming answer,
// say); the panel renders from its store, not because its host did.
const MemoFloating = memo(Floating)
const MemoEmbedded = memo(Embedded)

/** A floating button that opens the panel docked at the bottom or right of the page. */
export function AdvisorDevtools(props: AdvisorDevtoolsProps): JSX.Element {
  return createElement(MemoFloating, props)
}

/** The panel itself, to place anywhere in a layout: in its own shadow root, with an error boundary. */
export function AdvisorDevtoolsPanel(props: DevtoolsPanelProps): JSX.Element {
  return createElement(MemoEmbedded, props)
}
