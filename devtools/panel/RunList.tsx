import type { DevtoolsStore } from '../store'
import type { RunView } from '../trace-model'
import { clock, duration, shortId } from './format'
import { useDevtools } from './use-devtools'
import { WindowedList } from './windowed-list'

function matches(run: RunView, status: string, text: string): boolean {
  if (status !== 'all' && run.status !== status) return false
  if (!text) return true
  const needle = text.toLowerCase()
  return (
    run.label.toLowerCase().includes(needle) ||
    run.id.includes(needle) ||
    run.rounds.some((round) => round.tools.some((tool) => tool.name.toLowerCase().includes(needle)))
  )
}

/** The runs, newest first: a filterable, searchable list of buttons. */
export function RunList({ store }: { store: DevtoolsStore }) {
  useDevtools(store, (state) => state.version)
  const filter = useDevtools(store, (state) => state.filter)
  const selected = useDevtools(store, (state) => state.selection?.runId)
  const runs = store.runs().filter((run) => matches(run, filter.status, filter.text))
  return (
    <nav className="runs" aria-label="Runs">
      <div className="runs-filter">
        <input
          type="search"
          aria-label="Search runs"
          placeholder="Search prompt, tool, id…"
          value={filter.text}
          onChange={(event) => store.setFilter({ text: event.target.value })}
        />
        <select
          aria-label="Filter by status"
          value={filter.status}
          onChange={(event) => store.setFilter({ status: event.target.value as RunView['status'] | 'all' })}
        >
          <option value="all">All</option>
          <option value="running">Running</option>
          <option value="ok">OK</option>
          <option value="error">Error</option>
          <option value="aborted">Aborted</option>
        </select>
      </div>
      {runs.length === 0 ? (
        <p className="empty">
          {store.runs().length === 0 ? 'No runs yet. Send a message and each call shows up here.' : 'No run matches.'}
        </p>
      ) : (
        <WindowedList
          items={runs}
          rowHeight={58}
          label={`${runs.length} runs`}
          role="listbox"
          render={(run) => (
            <button
              type="button"
              role="option"
              className="run-row"
              aria-selected={run.id === selected}
              aria-label={`${run.label || 'Run'}: ${run.status}, ${run.rounds.length} rounds`}
              data-testid="run-row"
              onClick={() => store.select({ runId: run.id })}
            >
              <div className="run-title">
                <span className={`dot ${run.status}`} aria-hidden="true" />
                <span className="label">{run.label || '(no prompt seen)'}</span>
              </div>
              <div className="run-meta">
                {clock(run.startedAt)} · {run.mode} · {run.rounds.length} round{run.rounds.length === 1 ? '' : 's'} ·{' '}
                {duration(run.end === undefined ? undefined : run.end - run.start)}
                {run.usage ? ` · ${run.usage.totalTokens.toLocaleString()} tok` : ''}
                {run.toolErrors ? ` · ${run.toolErrors} tool error${run.toolErrors === 1 ? '' : 's'}` : ''} · #
                {shortId(run.id)}
              </div>
            </button>
          )}
        />
      )}
    </nav>
  )
}
