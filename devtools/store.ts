import {
  cassetteFromTrace,
  exportTrace,
  importTrace,
  type TraceEvent,
  type TraceSink,
  TraceReader,
  type RunView,
} from 'advisor-chain/trace'
import { matchesFilter, type RunFilter } from './search'
import { createStateStore, type StateStore } from './state-store'
import type { KeptRuns, KeptRunsState, RunKeeper } from './kept-runs'

/**
 * The least time between two notifications while events keep coming (a stream of a hundred chunks
 * a second, a burst of tool rounds): the panel shows them four times a second, in the same frames as
 * its live bars grow, instead of on every frame; each update costs the page a layout and a paint of
 * the panel. After a quiet spell the first event is shown on the next frame.
 */
export const LIVE_FLUSH_MS = 250
/** How often subscribers hear of changes while the page is hidden (no frames are drawn then). */
export const HIDDEN_FLUSH_MS = 1000

export interface DevtoolsStoreOptions {
  /** Runs kept; the oldest go first (default 100). */
  maxRuns?: number
  /**
   * Events kept over all runs; the oldest runs go first (default 20,000). A single run larger than
   * this keeps its head and its latest events, and says how many from its middle were dropped.
   */
  maxEvents?: number
  /**
   * Keeps the finished runs over page loads, in IndexedDB (opt-in): `keep: keepRuns({ name: 'my-app' })`.
   * Without it the runs are lost at a reload.
   */
  keep?: RunKeeper
}

export interface Selection {
  runId: string
  round?: number
  /**
   * The run whose timeline the selection was made in, when it is not `runId`'s: a sub-agent's round
   * picked where its parent's timeline shows it nested. The panel keeps showing that run.
   */
  within?: string
  /** The view of the run to show (default: the one shown last). */
  view?: 'timeline' | 'chain' | 'compare'
  /** A span of the round: the model call, a tool call (by id), a validation attempt, a retry, a retrieval. */
  span?:
    | { kind: 'model' }
    | { kind: 'tool'; id: string }
    | { kind: 'validation'; attempt: number }
    | { kind: 'retry'; attempt: number }
    | { kind: 'retrieval'; index: number }
}

export interface DevtoolsState {
  /** Bumped (at most once a frame) whenever the runs change. */
  version: number
  paused: boolean
  /** Events that arrived while paused (not recorded). */
  missed: number
  /** Runs dropped to stay within the bounds. */
  droppedRuns: number
  /** Where the runs came from: recorded in this page only, or also imported from a file (the latest import). */
  source:
    | { kind: 'live' }
    | {
        kind: 'file'
        name: string
        /** Events of the file added. */
        events: number
        /** Runs of the file added. */
        runs: number
        /** Runs of the file already shown (same run id), not added again. */
        duplicates: number
      }
  selection: Selection | undefined
  filter: RunFilter
  maxRuns: number
  maxEvents: number
  /** With `keep`: the runs restored from a previous page load, and what could not be kept or restored. */
  kept?: KeptRunsState
}

export interface DevtoolsStore extends StateStore<DevtoolsState>, TraceSink {
  /** The runs, newest first. */
  runs(): RunView[]
  /** The runs that pass the filter, newest first. */
  visibleRuns(): RunView[]
  run(id: string): RunView | undefined
  /** Events kept over all runs. */
  eventCount(): number
  select(selection: Selection | undefined): void
  setFilter(filter: Partial<RunFilter>): void
  pause(): void
  resume(): void
  /** Removes every run shown; with `keep`, also the runs kept for the next page load. */
  clear(): void
  /** With `keep`: the runs kept in IndexedDB. */
  readonly kept?: KeptRuns | undefined
  /** Every event kept, as a trace file (JSON text). */
  exportSession(): string
  /** The model calls of one run (or of all runs) as a cassette for ReplayChatModel, as JSON. */
  exportCassette(runId?: string): string
  /**
   * Adds the runs of a trace file to those shown; a run already shown (same id) is not added
   * again. A bad file throws a TraceFileError naming the first problem, and nothing changes.
   */
  importSession(text: string, name?: string): void
  /** Applies pending changes now (tests; the UI gets them once a frame). */
  flush(): void
}

/**
 * The devtools' state: a state store (zustand's vanilla shape: getState, setState, subscribe) that is a TraceSink (give it to an ObserverAdvisor).
 * Events are grouped as they arrive; subscribers hear about it at most once a frame.
 */
export function createDevtoolsStore(options: DevtoolsStoreOptions = {}): DevtoolsStore {
  const model = new TraceReader()
  let newestFirst: RunView[] | undefined
  let visible: { version: number; filter: RunFilter; runs: RunView[] } | undefined
  let dirty = false
  let scheduled = false
  let flushedAt = -Infinity
  const page = typeof document !== 'undefined' && typeof requestAnimationFrame === 'function'
  // Counted here and published with the next flush, so a burst of events is one notification.
  let dropped = 0
  let missed = 0

  const store = createStateStore<DevtoolsState>({
    version: 0,
    paused: false,
    missed: 0,
    droppedRuns: 0,
    source: { kind: 'live' },
    selection: undefined,
    filter: { status: 'all', text: '' },
    maxRuns: Math.max(1, options.maxRuns ?? 100),
    maxEvents: Math.max(1, options.maxEvents ?? 20_000),
  })

  const flush = () => {
    scheduled = false
    if (!dirty) return
    dirty = false
    flushedAt = performance.now()
    store.setState((state) => ({
      version: state.version + 1,
      droppedRuns: dropped,
      missed,
      selection: state.selection && model.run(state.selection.runId) ? state.selection : undefined,
    }))
  }
  const changed = () => {
    newestFirst = undefined
    dirty = true
    if (scheduled) return
    scheduled = true
    // Without animation frames (a server, a worker, Node): about a frame.
    if (!page) setTimeout(flush, 16)
    else if (document.hidden) setTimeout(flush, HIDDEN_FLUSH_MS)
    else setTimeout(() => requestAnimationFrame(flush), flushedAt + LIVE_FLUSH_MS - performance.now())
  }
  const enforceBounds = () => {
    const { maxRuns, maxEvents } = store.getState()
    while (model.size > 1 && (model.size > maxRuns || model.eventCount > maxEvents)) {
      model.dropOldest()
      dropped++
    }
    // One run alone over the bound: cut its middle, with room to spare so this is not done per event.
    if (model.eventCount > maxEvents) {
      const only = model.runs()[0]!
      model.trim(only.id, Math.max(2, Math.floor(maxEvents * 0.8)))
    }
  }
  const reset = () => {
    model.clear()
    dropped = 0
    missed = 0
  }
  const add = (event: TraceEvent, live: boolean) => {
    const fresh = !model.run(event.runId)
    model.add(event, live)
    // A new run may pass the run bound; a long run the event bound.
    if (fresh || model.eventCount > store.getState().maxEvents) enforceBounds()
  }
  const oldestFirst = () => model.runs()
  const runs = () => (newestFirst ??= model.runs().reverse())

  const self: DevtoolsStore = Object.assign(store, {
    emit(event: TraceEvent) {
      if (store.getState().paused) {
        missed++
        changed()
        return
      }
      try {
        add(event, true)
      } catch (error) {
        // A sink must never break the run it watches.
        console.error('advisor-chain devtools could not record an event', event, error)
      }
      changed()
    },
    runs,
    visibleRuns() {
      const { version, filter } = store.getState()
      if (visible?.version !== version || visible.filter !== filter) {
        const all = runs()
        const unfiltered = filter.status === 'all' && filter.text.trim() === ''
        visible = { version, filter, runs: unfiltered ? all : all.filter((run) => matchesFilter(run, filter)) }
      }
      return visible.runs
    },
    run: (id: string) => model.run(id),
    eventCount: () => model.eventCount,
    select: (selection: Selection | undefined) => store.setState({ selection }),
    setFilter: (filter: Partial<RunFilter>) => store.setState((state) => ({ filter: { ...state.filter, ...filter } })),
    pause: () => store.setState({ paused: true }),
    resume() {
      missed = 0
      store.setState({ paused: false, missed: 0 })
    },
    clear() {
      reset()
      store.setState({ selection: undefined, droppedRuns: 0, missed: 0, source: { kind: 'live' } })
      changed()
    },
    exportCassette(runId?: string) {
      const runs = runId ? [model.run(runId)].filter((run) => run !== undefined) : oldestFirst()
      return JSON.stringify(cassetteFromTrace(runs.flatMap((run) => run.events)), null, 2)
    },
    exportSession: () => exportTrace(oldestFirst().flatMap((run) => run.events)),
    importSession(text: string, name = 'trace file') {
      const events = importTrace(text)
      const shown = new Set(model.runs().map((run) => run.id))
      const incoming = new Set(events.map((event) => event.runId))
      const fresh = events.filter((event) => !shown.has(event.runId))
      for (const event of fresh) add(event, false)
      const duplicates = [...incoming].filter((id) => shown.has(id)).length
      store.setState({
        source: { kind: 'file', name, events: fresh.length, runs: incoming.size - duplicates, duplicates },
      })
      changed()
    },
    flush,
  })
  // With `keep`: the keeper adds the runs it restores as runs read from a file, and makes Clear forget what it keeps.
  return Object.assign(self, {
    kept: options.keep?.(self, (events) => {
      for (const event of events) add(event, false)
      changed()
    }),
  })
}
