import { memo } from 'react'
import { AdvisorDevtools as Floating } from './AdvisorDevtools'
import { AdvisorDevtoolsPanel as Embedded } from './DevtoolsPanel'

export type { AdvisorDevtoolsProps } from './AdvisorDevtools'
export type { DevtoolsPanelProps } from './DevtoolsPanel'

// Memoized: the page re-renders the component that holds the devtools (on every chunk of a
// streaming answer, say); the panel renders from its store, not because its host did.
export const AdvisorDevtools = memo(Floating)
export const AdvisorDevtoolsPanel = memo(Embedded)
