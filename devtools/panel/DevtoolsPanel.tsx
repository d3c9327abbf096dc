import type { ApprovalSource } from '../approvals'
import type { ForkRunner } from '../fork'
import { useDeferredValue, useState, type ReactNode } from 'react'
import type { DevtoolsStore } from '../store'
import { newestTopLevel } from '../sub-agents'
import { Approvals } from './Approvals'
import { ErrorBoundary } from './ErrorBoundary'
import { plural, shortId } from './format'
import { RunDetail } from './RunDetail'
import { RunList } from './RunList'
import { ShadowRoot } from '../shadow-root'
import { styles } from './styles'
import { Toolbar } from './Toolbar'
import { useDevtools } from './use-devtools'
import { useTheme } from './use-theme'

export interface DevtoolsPanelProps {
  store: DevtoolsStore
  /** Shows the tool calls waiting for approval, with buttons. */
  approvals?: ApprovalSource
  /** Extra toolbar buttons (the dock controls of the floating panel). */
  controls?: ReactNode
  /** Lets the inspector re-run a round with edits ("Re-run from here"); without it the panel only reads. */
  fork?: ForkRunner
}

/** The panel itself, to place anywhere in a layout: in its own shadow root, with an error boundary. */
export function AdvisorDevtoolsPanel(props: DevtoolsPanelProps) {
  return (
    <ShadowRoot className="embedded" styles={styles}>
      <PanelFrame {...props} />
    </ShadowRoot>
  )
}

/** The panel inside a shadow root: theme, error boundary, content. `landmark`: false where its dock is the landmark. */
export function PanelFrame({ landmark = true, ...props }: DevtoolsPanelProps & { landmark?: boolean }) {
  const [theme, toggleTheme] = useTheme()
  return (
    <div
      className="root"
      data-theme={theme}
      data-testid="devtools-panel"
      {...(landmark ? { role: 'region', 'aria-label': 'advisor-chain devtools' } : {})}
    >
      <ErrorBoundary area="devtools panel">
        <PanelContent {...props} theme={theme} onTheme={toggleTheme} />
      </ErrorBoundary>
    </div>
  )
}

function PanelContent({
  store,
  approvals,
  controls,
  fork,
  theme,
  onTheme,
}: DevtoolsPanelProps & { theme: 'light' | 'dark'; onTheme: () => void }) {
  // Renders again when another run is shown, not on every event: the run's own views follow it.
  // Without a selection the panel follows the newest run that no other run started (sub-agents' runs are in its timeline).
  const chosen = useDevtools(
    store,
    ({ selection }) => (selection && store.run(selection.within ?? selection.runId)) ?? newestTopLevel(store.runs()),
  )
  // Another run's detail is drawn in the background (a transition), in slices, not in one long task.
  const run = useDeferredValue(chosen)
  const [imported, setImported] = useState<{ error?: string; name?: string }>({})
  return (
    <>
      <Toolbar store={store} theme={theme} onTheme={onTheme} onImport={setImported}>
        {controls}
      </Toolbar>
      <Notes store={store} importError={imported.error} onDismiss={() => setImported({})} />
      {approvals && <Approvals queue={approvals} />}
      <div className="body">
        <RunList store={store} />
        {run ? (
          <RunDetail store={store} run={run} fork={fork} />
        ) : (
          <div className="detail empty-detail">
            <p className="empty">
              Runs appear here as they happen: every round of the tool loop, each model call with its streaming, every
              tool execution. Feed this store to an <code>ObserverAdvisor</code>, or import a trace file.
            </p>
          </div>
        )}
      </div>
    </>
  )
}

/** One line each: an import that failed, the file shown, runs dropped to stay in bounds, events missed while paused. */
function Notes({
  store,
  importError,
  onDismiss,
}: {
  store: DevtoolsStore
  importError: string | undefined
  onDismiss: () => void
}) {
  const dropped = useDevtools(store, (state) => state.droppedRuns)
  const missed = useDevtools(store, (state) => state.missed)
  const paused = useDevtools(store, (state) => state.paused)
  const source = useDevtools(store, (state) => state.source)
  const maxRuns = useDevtools(store, (state) => state.maxRuns)
  const maxEvents = useDevtools(store, (state) => state.maxEvents)
  const kept = useDevtools(store, (state) => state.kept)
  // A new object on each trim: the note renders again when its figures change, not on every event.
  const trimmedFigures = useDevtools(store, () => store.runs().find((run) => run.trimmed)?.trimmed)
  const trimmedRun = trimmedFigures && store.runs().find((run) => run.trimmed === trimmedFigures)
  const trimmed = trimmedRun && trimmedFigures && { id: trimmedRun.id, ...trimmedFigures }
  const notes: Array<{ kind: string; text: ReactNode; testId: string }> = []
  if (importError) notes.push({ kind: 'bad', text: importError, testId: 'import-error' })
  if (source.kind === 'file')
    notes.push({
      kind: 'info',
      text: `Imported ${source.name}: ${plural(source.runs, 'run')} (${plural(source.events, 'event')}) added${source.duplicates > 0 ? `; ${plural(source.duplicates, 'run')} already shown (same run id), not added again` : ''}. Clear to go back to live runs only.`,
      testId: 'import-source',
    })
  if (kept?.restored.size)
    notes.push({
      kind: 'info',
      text: `${plural(kept.restored.size, 'run')} restored from a previous page load. Clear forgets them.`,
      testId: 'restored-note',
    })
  kept?.problems.forEach((problem, index) =>
    notes.push({ kind: 'warn', text: problem, testId: `kept-problem-${index}` }),
  )
  if (trimmed)
    notes.push({
      kind: 'info',
      text: `Run ${shortId(trimmed.id)} is larger than ${plural(maxEvents, 'event')}: ${plural(trimmed.events, 'event')} from its middle (seq ${trimmed.fromSeq}–${trimmed.toSeq}, mostly chunks) dropped; its start and latest events are kept, its rounds are whole.`,
      testId: 'trimmed-note',
    })
  if (dropped > 0)
    notes.push({
      kind: 'info',
      text: `${plural(dropped, 'older run')} dropped to stay within ${plural(maxRuns, 'run')} or ${plural(maxEvents, 'event')}.`,
      testId: 'dropped-note',
    })
  if (paused)
    notes.push({
      kind: 'warn',
      text: `Recording is paused${missed > 0 ? `: ${plural(missed, 'event')} not recorded` : ''}.`,
      testId: 'paused-note',
    })
  if (notes.length === 0) return null
  return (
    <div className="notes">
      {notes.map((note) => (
        <p
          key={note.testId}
          className={`note ${note.kind}`}
          role={note.kind === 'bad' ? 'alert' : 'status'}
          data-testid={note.testId}
        >
          {note.text}
          {note.testId === 'import-error' && (
            <button type="button" className="link" onClick={onDismiss}>
              Dismiss
            </button>
          )}
        </p>
      ))}
    </div>
  )
}
