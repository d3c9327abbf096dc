import type { ApprovalQueue } from 'advisor-chain'
import { useEffect, useState, type ReactNode } from 'react'
import type { DevtoolsStore } from '../store'
import { Approvals } from './Approvals'
import { ErrorBoundary } from './ErrorBoundary'
import { RunDetail } from './RunDetail'
import { RunList } from './RunList'
import { ShadowRoot } from './shadow-root'
import { Toolbar } from './Toolbar'
import { useDevtools } from './use-devtools'
import { preferences, savePreferences } from './preferences'

export interface DevtoolsPanelProps {
  store: DevtoolsStore
  /** Shows the tool calls waiting for approval, with buttons. */
  approvals?: ApprovalQueue
  /** Extra toolbar buttons (the dock controls of the floating panel). */
  controls?: ReactNode
}

/** The panel itself, to place anywhere: in its own shadow root, with an error boundary. */
export function AdvisorDevtoolsPanel(props: DevtoolsPanelProps) {
  return (
    <ShadowRoot>
      <PanelFrame {...props} />
    </ShadowRoot>
  )
}

/** The panel inside a shadow root: theme, error boundary, content. */
export function PanelFrame(props: DevtoolsPanelProps) {
  const [theme, setTheme] = useState<'light' | 'dark'>(
    () => preferences().theme ?? (globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'),
  )
  return (
    <div className="root" data-theme={theme}>
      <ErrorBoundary>
        <PanelContent
          {...props}
          theme={theme}
          onTheme={() => {
            const next = theme === 'dark' ? 'light' : 'dark'
            setTheme(next)
            savePreferences({ theme: next })
          }}
        />
      </ErrorBoundary>
    </div>
  )
}

function PanelContent({
  store,
  approvals,
  controls,
  theme,
  onTheme,
}: DevtoolsPanelProps & { theme: 'light' | 'dark'; onTheme: () => void }) {
  useDevtools(store, (state) => state.version)
  const selection = useDevtools(store, (state) => state.selection)
  const dropped = useDevtools(store, (state) => state.droppedRuns)
  const limits = useDevtools(store, (state) => `${state.maxRuns} runs, ${state.maxEvents.toLocaleString()} events`)
  const [importError, setImportError] = useState<string>()
  const runs = store.runs()
  const run = (selection && store.run(selection.runId)) ?? runs[0]
  // Follow the newest run until the user picks one.
  useEffect(() => {
    if (!selection && runs[0]) store.select({ runId: runs[0].id })
  }, [selection, runs, store])
  return (
    <>
      <Toolbar store={store} theme={theme} onTheme={onTheme} onError={setImportError}>
        {controls}
      </Toolbar>
      {importError && (
        <p className="note" role="alert">
          {importError}
        </p>
      )}
      {dropped > 0 && (
        <p className="note">
          {dropped} older run{dropped === 1 ? '' : 's'} dropped to stay within {limits}.
        </p>
      )}
      {approvals && <Approvals queue={approvals} />}
      <div className="body">
        <RunList store={store} />
        {run ? (
          <RunDetail store={store} run={run} />
        ) : (
          <p className="empty detail">Runs appear here as they happen: every round, model call and tool execution.</p>
        )}
      </div>
    </>
  )
}
