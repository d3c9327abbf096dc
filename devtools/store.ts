import { cassetteFromTrace, exportTrace, importTrace, type TraceEvent, type TraceSink } from 'advisor-chain'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { TraceModel, type RunView, type Status } from './trace-model'

export interface DevtoolsStoreOptions {
  /** Runs kept; the oldest go first (default 100). */
  maxRuns?: number
  /** Events kept over all runs; the oldest runs go first (default 20,000). */
  maxEvents?: number
}

export interface Selection {
  runId: string
  round?: number
  /** A span of the round: the model call, a tool call (by id), a validation attempt. */
  span?:
    | { kind: 'model' }
    | { kind: 'tool'; id: string }
    | { kind: 'validation'; attempt: number }
    | { kind: 'retry'; attempt: number }
}

export interface DevtoolsState {
  /** Bumped (at most once a frame) whenever the runs change. */
  version: number
  paused: boolean
  /** Runs dropped to stay within the bounds. */
  droppedRuns: number
  selection: Selection | undefined
  filter: { status: Status | 'all'; text: string }
  maxRuns: number
  maxEvents: number
}

export interface DevtoolsStore extends StoreApi<DevtoolsState>, TraceSink {
  /** The runs, newest first. */
  runs(): RunView[]
  run(id: string): RunView | undefined
  select(selection: Selection | undefined): void
  setFilter(filter: Partial<DevtoolsState['filter']>): void
  pause(): void
  resume(): void
  clear(): void
  /** Every event kept, as a trace file. */
  exportSession(): string
  /** The model calls of one run (or of all runs) as a cassette for ReplayChatModel, as JSON. */
  exportCassette(runId?: string): string
  /** Replaces what is shown with a trace file; throws a TraceFileError for a bad one (nothing changes then). */
  importSession(text: string): void
  /** Applies pending changes now (tests; the UI gets them once a frame). */
  flush(): void
}

/**
 * The devtools' state: a vanilla zustand store that is a TraceSink (give it to an ObserverAdvisor).
 * Events are grouped as they arrive; subscribers hear about it at most once a frame.
 */
export function createDevtoolsStore(options: DevtoolsStoreOptions = {}): DevtoolsStore {
  const model = new TraceModel()
  let newestFirst: RunView[] | undefined
  let scheduled = false

  const store = createStore<DevtoolsState>()(() => ({
    version: 0,
    paused: false,
    droppedRuns: 0,
    selection: undefined,
    filter: { status: 'all', text: '' },
    maxRuns: options.maxRuns ?? 100,
    maxEvents: options.maxEvents ?? 20_000,
  }))

  const flush = () => {
    scheduled = false
    store.setState((state) => ({ version: state.version + 1 }))
  }
  const changed = () => {
    newestFirst = undefined
    if (scheduled) return
    scheduled = true
    if (typeof requestAnimationFrame === 'function' && typeof document !== 'undefined' && !document.hidden)
      requestAnimationFrame(flush)
    else setTimeout(flush, 16)
  }
  const add = (event: TraceEvent) => {
    const fresh = !model.run(event.runId)
    model.add(event)
    if (fresh) enforceBounds()
  }
  const enforceBounds = () => {
    const { maxRuns, maxEvents } = store.getState()
    let dropped = 0
    while (model.size > 1 && (model.size > maxRuns || model.eventCount > maxEvents)) {
      model.dropOldest()
      dropped++
    }
    if (dropped > 0) {
      const selection = store.getState().selection
      store.setState((state) => ({
        droppedRuns: state.droppedRuns + dropped,
        ...(selection && !model.run(selection.runId) ? { selection: undefined } : {}),
      }))
    }
  }

  return Object.assign(store, {
    emit(event: TraceEvent) {
      if (store.getState().paused) return
      add(event)
      // A long run can pass the event bound on its own: check again now and then.
      if (model.eventCount > store.getState().maxEvents) enforceBounds()
      changed()
    },
    runs() {
      newestFirst ??= [...model.runs].sort((a, b) => b.order - a.order)
      return newestFirst
    },
    run: (id: string) => model.run(id),
    select: (selection: Selection | undefined) => store.setState({ selection }),
    setFilter: (filter: Partial<DevtoolsState['filter']>) =>
      store.setState((state) => ({ filter: { ...state.filter, ...filter } })),
    pause: () => store.setState({ paused: true }),
    resume: () => store.setState({ paused: false }),
    clear() {
      model.clear()
      store.setState({ selection: undefined, droppedRuns: 0 })
      changed()
    },
    exportCassette: (runId?: string) => {
      const runs = runId
        ? [model.run(runId)].filter((run) => run !== undefined)
        : [...model.runs].sort((a, b) => a.order - b.order)
      return JSON.stringify(cassetteFromTrace(runs.flatMap((run) => run.events)), null, 2)
    },
    exportSession: () => exportTrace([...model.runs].sort((a, b) => a.order - b.order).flatMap((run) => run.events)),
    importSession(text: string) {
      const events = importTrace(text)
      model.clear()
      store.setState({ selection: undefined, droppedRuns: 0 })
      for (const event of events) add(event)
      changed()
    },
    flush,
  })
}
