import { TraceFileError } from 'advisor-chain'
import { useRef, type ReactNode } from 'react'
import type { DevtoolsStore } from '../store'
import { useDevtools } from './use-devtools'

export interface ToolbarProps {
  store: DevtoolsStore
  theme: 'light' | 'dark'
  onTheme: () => void
  onError: (message: string | undefined) => void
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

/** Record/pause, clear, export and import of a session, the theme; `children` adds the dock controls. */
export function Toolbar({ store, theme, onTheme, onError, children }: ToolbarProps) {
  const paused = useDevtools(store, (state) => state.paused)
  const file = useRef<HTMLInputElement>(null)
  const stamp = () => new Date().toISOString().replace(/[:.]/g, '-')
  return (
    <div className="toolbar" role="toolbar" aria-label="Devtools">
      <span className="brand">
        advisor-chain<small>devtools</small>
      </span>
      <button
        type="button"
        className="tool-button"
        aria-pressed={paused}
        onClick={() => (paused ? store.resume() : store.pause())}
      >
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button type="button" className="tool-button" onClick={() => store.clear()}>
        Clear
      </button>
      <button
        type="button"
        className="tool-button"
        onClick={() => download(`advisor-chain-trace-${stamp()}.json`, store.exportSession())}
      >
        Export
      </button>
      <button type="button" className="tool-button" onClick={() => file.current?.click()}>
        Import
      </button>
      <button
        type="button"
        className="tool-button"
        title="The model calls of the selected run, for ReplayChatModel: a regression test without network or GPU"
        onClick={() => {
          try {
            const runId = store.getState().selection?.runId
            download(`advisor-chain-cassette-${stamp()}.json`, store.exportCassette(runId))
            onError(undefined)
          } catch (error) {
            onError((error as Error).message)
          }
        }}
      >
        Cassette
      </button>
      <input
        ref={file}
        type="file"
        accept="application/json,.json"
        aria-label="Import a trace file"
        hidden
        onChange={(event) => {
          const chosen = event.target.files?.[0]
          event.target.value = ''
          if (!chosen) return
          chosen
            .text()
            .then((text) => {
              store.importSession(text)
              onError(undefined)
            })
            .catch((error: unknown) =>
              onError(
                error instanceof TraceFileError ? error.message : `Could not import: ${(error as Error).message}`,
              ),
            )
        }}
      />
      <span className="spacer" />
      <button
        type="button"
        className="tool-button"
        aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}
        onClick={onTheme}
      >
        {theme === 'dark' ? 'Light' : 'Dark'}
      </button>
      {children}
    </div>
  )
}
