'use client'
// advisor-chain/devtools: the store (a TraceSink for an ObserverAdvisor) and the in-page panel.
// The panel's code is loaded only when it first renders in a page, and in a production build it
// renders nothing unless `enabled` (or it is loaded with `loadDevtools()`). On the server, and in
// the render that hydrates, it renders nothing: it mounts once the page runs.
import { Suspense, lazy, useEffect, useLayoutEffect, useState } from 'react'
import { openedAt, reserveDockRoom, type Dock } from './dock'
import { LoadBoundary } from './load-boundary'
import { preferences, savePreferences } from './preferences'
import { ClosedToggle } from './toggle'
import type { AdvisorDevtoolsProps, DevtoolsPanelProps } from './panel'
import type * as Panel from './panel'

export {
  createDevtoolsStore,
  type DevtoolsState,
  type DevtoolsStore,
  type DevtoolsStoreOptions,
  type Selection,
} from './store'
export type { StateStore } from './state-store'
export { keepRuns, type KeepRunsOptions, type KeptRuns, type KeptRunsState, type RunKeeper } from './kept-runs'
export { roundFigures, runFigures, type RoundFigures, type RunFigures } from './figures'
export type { RunFilter, StatusFilter } from './search'
export type { ModelSpan, RoundView, RunView, RunViewStatus as Status, ToolSpan } from 'advisor-chain/trace'
export type { AdvisorDevtoolsProps, DevtoolsPanelProps } from './panel'
export type { ApprovalSource, PendingToolApproval } from './approvals'
export type { ForkRunner } from './fork'
export type { ComparedRound, RunComparison } from './compare'

/** The real panel components, loaded on demand (also in production builds). */
export const loadDevtools = (): Promise<typeof Panel> => import('./panel')

const LazyDevtools = lazy(() => loadDevtools().then((module) => ({ default: module.AdvisorDevtools })))
const LazyPanel = lazy(() => loadDevtools().then((module) => ({ default: module.AdvisorDevtoolsPanel })))

// Only the one field bundlers replace; no Node types in a browser package.
declare const process: { env: { NODE_ENV?: string } }

function isProduction(): boolean {
  try {
    // Bundlers replace this expression; where nothing does, `process` may not exist at all.
    return process.env.NODE_ENV === 'production'
  } catch {
    return false
  }
}

interface Enabled {
  /** Render in a production build too (default: only in development). */
  enabled?: boolean
}

let toldOff = false

/** Once a page: a production build leaves the devtools out unless told, and says how to keep them. */
function useOffInProductionNote(enabled: boolean | undefined): void {
  useEffect(() => {
    if (enabled !== undefined || toldOff || !isProduction()) return
    toldOff = true
    console.info(
      'advisor-chain/devtools: the devtools render nothing in a production build; pass enabled to show them.',
    )
  }, [enabled])
}

/** False on the server and in the render that hydrates; true once the component mounted in a page. */
function useMounted(): boolean {
  const [mounted, setMounted] = useState(false)
  useEffect(() => setMounted(true), [])
  return mounted
}

/**
 * A floating button that opens the panel docked at the bottom or right of the page. Until the
 * panel is first opened only the button is there: the panel's code loads when it is opened (at once
 * when it was left open, or with `initialIsOpen`).
 */
export function AdvisorDevtools({ enabled: given, ...props }: AdvisorDevtoolsProps & Enabled) {
  const enabled = given ?? !isProduction()
  useOffInProductionNote(given)
  const mounted = useMounted()
  // Read once, not on every render of the page's component that holds the devtools.
  const [opened, setOpened] = useState(() => preferences().open ?? props.initialIsOpen ?? false)
  const open = () => {
    savePreferences({ open: true })
    setOpened(true)
  }
  if (!enabled || !mounted) return null
  if (!opened) return <ClosedToggle store={props.store} onOpen={open} />
  return (
    <LoadBoundary>
      <Suspense fallback={<PanelRoom position={props.position ?? 'bottom'} />}>
        <LazyDevtools {...props} />
      </Suspense>
    </LoadBoundary>
  )
}

/** While the panel's code loads: the page already leaves the room the panel will take. */
function PanelRoom({ position }: { position: Dock }) {
  useLayoutEffect(() => {
    const { dock, size } = openedAt(preferences(), position)
    return reserveDockRoom(dock, size)
  }, [position])
  return null
}

/** The panel to place anywhere in your layout (it fills its container). */
export function AdvisorDevtoolsPanel({ enabled: given, ...props }: DevtoolsPanelProps & Enabled) {
  const enabled = given ?? !isProduction()
  useOffInProductionNote(given)
  const mounted = useMounted()
  if (!enabled || !mounted) return null
  return (
    <LoadBoundary>
      <Suspense fallback={null}>
        <LazyPanel {...props} />
      </Suspense>
    </LoadBoundary>
  )
}
