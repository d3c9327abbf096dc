import { memo, type CSSProperties } from 'react'
import { RUN_STATE_WORDS, runFigures, runState } from '../figures'
import type { RunFilter, StatusFilter } from '../search'
import { agentToolName, nestedRuns, newestTopLevel } from '../sub-agents'
import type { DevtoolsStore } from '../store'
import type { RunView } from 'advisor-chain/trace'
import { clock, duration, formatCount, plural, shortId, tokensShort } from './format'
import { useDevtools } from './use-devtools'
import { useVersion } from './use-version'
import { WindowedList, sameRowProps, type RowProps } from './windowed-list'

const ROW_HEIGHT = 56

const STATUS_FILTERS: Array<[StatusFilter, string]> = [
  ['all', 'All runs'],
  ['running', 'Running'],
  ['ok', 'OK'],
  ['problem', 'With problems'],
  ['error', 'Failed'],
  ['aborted', 'Aborted'],
]

/** The runs, newest first: a filterable, searchable list of buttons. */
export const RunList = memo(function RunList({ store }: { store: DevtoolsStore }) {
  useVersion(store)
  const filter = useDevtools(store, (state) => state.filter)
  const all = store.runs()
  const selected = useDevtools(store, (state) => state.selection?.runId) ?? newestTopLevel(all)?.id
  const runs = store.visibleRuns()
  // Sub-agents' runs sit under the run that called them.
  const rows = nestedRuns(runs)
  const selectedIndex = Math.max(
    0,
    rows.findIndex(({ run }) => run.id === selected),
  )
  return (
    <nav className="runs" aria-label="Runs" style={{ '--run-row': `${ROW_HEIGHT}px` } as CSSProperties}>
      <FilterForm store={store} filter={filter} />
      <div className="runs-count" aria-live="polite">
        {runs.length === all.length
          ? plural(all.length, 'run')
          : `${formatCount(runs.length)} of ${plural(all.length, 'run')}`}
      </div>
      {runs.length === 0 ? (
        <p className="empty">
          {all.length === 0
            ? 'No runs yet. Each call of the ChatClient shows up here as it happens.'
            : 'No run matches.'}
        </p>
      ) : (
        <WindowedList
          items={rows}
          rowHeight={ROW_HEIGHT}
          rowKey={({ run }) => run.id}
          label="Runs, newest first"
          role="listbox"
          itemRole="presentation"
          activeIndex={selectedIndex}
          testId="run-list"
          render={({ run, depth }, _index, row) => (
            <RunRow
              run={run}
              version={run.version}
              depth={depth}
              via={depth > 0 ? agentToolName(all, run) : undefined}
              selected={run.id === selected}
              row={row}
              store={store}
            />
          )}
        />
      )}
    </nav>
  )
})

/** The search and status filter: renders again when the filter changes, not on every event. */
const FilterForm = memo(function FilterForm({ store, filter }: { store: DevtoolsStore; filter: RunFilter }) {
  return (
    <div className="runs-filter">
      <input
        type="search"
        aria-label="Search runs"
        placeholder="Search prompts, answers, tools…"
        value={filter.text}
        onChange={(event) => store.setFilter({ text: event.target.value })}
      />
      <select
        aria-label="Filter by status"
        value={filter.status}
        onChange={(event) => store.setFilter({ status: event.target.value as StatusFilter })}
      >
        {STATUS_FILTERS.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  )
})

interface RunRowProps {
  run: RunView
  /** The run's version when shown: the row renders again only when its run changed. */
  version: number
  depth: number
  /** For a sub-agent's run: the tool that started it. */
  via: string | undefined
  selected: boolean
  row: RowProps
  store: DevtoolsStore
}

/** Rows whose run did not change keep what they showed, figures and times formatted once. */
const sameRow = (before: RunRowProps, after: RunRowProps) =>
  before.run === after.run &&
  before.version === after.version &&
  before.depth === after.depth &&
  before.via === after.via &&
  before.selected === after.selected &&
  before.store === after.store &&
  sameRowProps(before.row, after.row)

const RunRow = memo(function RunRow({ run, depth, via, selected, row, store }: RunRowProps) {
  const figures = runFigures(run)
  const state = runState(run)
  const label = run.label || '(no prompt recorded)'
  const meta = [
    plural(figures.rounds, 'round'),
    figures.durationMs === undefined ? RUN_STATE_WORDS[state] : duration(figures.durationMs),
    tokensShort(figures.usage),
  ].filter(Boolean)
  return (
    <button
      type="button"
      className="run-row"
      role="option"
      aria-selected={selected}
      data-testid="run-row"
      data-status={state}
      data-depth={depth}
      onClick={() => store.select({ runId: run.id })}
      {...row}
      style={depth > 0 ? { paddingLeft: `${10 + Math.min(depth, 4) * 14}px` } : undefined}
    >
      <span className="run-title">
        <span className={`dot ${state}`} aria-hidden="true" />
        <span className="label">{label}</span>
        {/* The dot's colour, in words: a row's name is what it shows. */}
        <span className="sr-only">, {RUN_STATE_WORDS[state]},</span>
        <span className="run-id">#{shortId(run.id)}</span>
      </span>
      <span className="run-meta">
        {depth > 0 && <span className="agent-text">↳ sub-agent{via ? ` · ${via}` : ''}</span>}
        <span>{clock(run.startedAt)}</span>
        {run.forkOf && (
          <span className="fork-text">
            fork of #{shortId(run.forkOf.runId)} @ round {run.forkOf.round}
          </span>
        )}
        {run.toolErrors > 0 && <span className="bad-text">{plural(run.toolErrors, 'tool error')}</span>}
        {meta.map((part) => (
          <span key={part}>{part}</span>
        ))}
      </span>
    </button>
  )
}, sameRow)
