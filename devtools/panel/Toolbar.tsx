import { TraceFileError } from 'advisor-chain/trace'
import { useRef, type ReactNode } from 'react'
import type { DevtoolsStore } from '../store'
import { plural } from './format'
import { useDevtools } from './use-devtools'
import { useVersion } from './use-version'

export interface ToolbarProps {
  store: DevtoolsStore
  theme: 'light' | 'dark'
  onTheme: () => void
  onImport: (result: { error?: string; name?: string }) => void
  children?: ReactNode
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

const stamp = () => new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')

/** Record/pause, clear, export and import of a session, the theme; `children` adds the dock controls. */
export function Toolbar({ store, theme, onTheme, onImport, children }: ToolbarProps) {
  const paused = useDevtools(store, (state) => state.paused)
  // Renders again when the store empties or fills, not on every event (the count has its own component).
  const empty = useDevtools(store, () => store.eventCount() === 0)
  const file = useRef<HTMLInputElement>(null)
  return (
    <div className="toolbar" role="toolbar" aria-label="Devtools">
      <span className="brand">
        <svg viewBox="0 0 32 32" aria-hidden="true" className="logo">
          <rect x="3" y="9" width="14" height="14" rx="7" />
          <rect x="15" y="9" width="14" height="14" rx="7" />
        </svg>
        advisor-chain <small>devtools</small>
      </span>
      <span className="toolbar-actions">
        <button
          type="button"
          className={`tool-button record${paused ? ' paused' : ''}`}
          aria-pressed={!paused}
          title={paused ? 'Recording is paused: new events are not kept' : 'Recording: click to pause'}
          onClick={() => (paused ? store.resume() : store.pause())}
        >
          <span className="record-dot" aria-hidden="true" />
          {paused ? 'Paused' : 'Recording'}
        </button>
        <span className="divider" aria-hidden="true" />
        <button
          type="button"
          className="tool-button"
          title={
            store.kept ? 'Remove every run shown, and the runs kept for the next page load' : 'Remove every run shown'
          }
          onClick={() => store.clear()}
          disabled={empty && !store.kept}
        >
          Clear
        </button>
        <button
          type="button"
          className="tool-button"
          title="Download every event kept as a trace file (JSON)"
          disabled={empty}
          onClick={() => download(`advisor-chain-trace-${stamp()}.json`, store.exportSession())}
        >
          Export
        </button>
        <button
          type="button"
          className="tool-button"
          title="Open a trace file; its runs are added to those shown (runs already shown are skipped)"
          onClick={() => file.current?.click()}
        >
          Import
        </button>
        <button
          type="button"
          className="tool-button"
          title="The model calls of the selected run, for ReplayChatModel: a regression test without network or GPU"
          disabled={empty}
          onClick={() => {
            const runId = store.getState().selection?.runId ?? store.runs()[0]?.id
            download(`advisor-chain-cassette-${stamp()}.json`, store.exportCassette(runId))
          }}
        >
          Cassette
        </button>
        <input
          ref={file}
          type="file"
          accept="application/json,.json"
          aria-label="Import a trace file"
          data-testid="import-file"
          hidden
          onChange={(event) => {
            const chosen = event.target.files?.[0]
            event.target.value = ''
            if (!chosen) return
            chosen
              .text()
              .then((text) => {
                store.importSession(text, chosen.name)
                onImport({ name: chosen.name })
              })
              .catch((error: unknown) =>
                onImport({
                  error:
                    error instanceof TraceFileError
                      ? `${chosen.name} was not imported: ${error.message}`
                      : `Could not import ${chosen.name}: ${(error as Error).message}`,
                }),
              )
          }}
        />
      </span>
      <span className="spacer" />
      <EventCount store={store} />
      {/* Theme, dock and close stay in the first line at any width, so the panel can always be closed. */}
      <span className="toolbar-end">
        <button
          type="button"
          className="tool-button icon"
          aria-label={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`}
          title={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`}
          onClick={onTheme}
        >
          <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
        </button>
        {children}
      </span>
    </div>
  )
}

/** How many events the store keeps, renewed with each update. */
function EventCount({ store }: { store: DevtoolsStore }) {
  useVersion(store)
  return (
    <span className="muted counter" aria-live="off">
      {plural(store.eventCount(), 'event')}
    </span>
  )
}
