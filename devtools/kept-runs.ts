import { exportTrace, importTrace, type RunView, type TraceEvent } from 'advisor-chain/trace'
import { IndexedDBConnection, isQuotaExceeded } from '../src/storage'
import type { DevtoolsStore } from './store'

// The devtools' runs kept over page loads (opt-in): each finished run of this page is written to
// IndexedDB as a trace file of its own, and the next page load shows them again as it would an
// imported file. An app that does not import keepRuns loads none of this.

export interface KeepRunsOptions {
  /** Names the database (`advisor-chain-devtools:<name>`): one per app. */
  name: string
  /** Runs kept; the oldest go first (default 20). */
  maxRuns?: number
  /** Bytes kept over all runs (their trace JSON, UTF-8); the oldest go first (default 5 MB). A larger run is not kept. */
  maxBytes?: number
  /** For tests and workers: the IndexedDB to use (default `globalThis.indexedDB`). */
  indexedDB?: IDBFactory
}

export interface KeptRunsState {
  /** The runs shown again from a previous page load, by id. */
  restored: ReadonlySet<string>
  /** Kept runs not shown (unreadable records), runs that could not be kept, a database that could not be opened: the latest 5. */
  problems: readonly string[]
  /** The kept runs were read (or could not be). */
  loaded: boolean
}

export interface KeptRuns {
  /** The IndexedDB database the runs are kept in. */
  readonly databaseName: string
  /** Settles once the kept runs are shown (or could not be read). */
  readonly restored: Promise<void>
  /** Settles once the runs finished so far are written. */
  saved(): Promise<void>
  /** Forgets every kept run, of every tab of the app (the devtools' Clear does this). */
  forget(): Promise<void>
}

/**
 * What `createDevtoolsStore({ keep })` takes: it is called once with the store and the function
 * that adds the events of runs read from a file (not recorded in this page).
 */
export type RunKeeper = (store: DevtoolsStore, restore: (events: readonly TraceEvent[]) => unknown) => KeptRuns

const RUNS = 'runs'
/** Per run: when it was written and its size, so bounding the database reads no trace. */
const SIZES = 'sizes'
const DB_VERSION = 1
/** Problems the panel lists at once. */
const MAX_PROBLEMS = 5

interface KeptSize {
  id: string
  savedAt: number
  bytes: number
}

/**
 * Keeps the devtools' finished runs in IndexedDB, bounded, and shows them again at the next page
 * load, marked as restored: `createDevtoolsStore({ keep: keepRuns({ name: 'my-app', maxRuns: 20 }) })`.
 * The events are kept as the trace records them (secrets already masked) and read back as an
 * imported trace file is: a record that fails the check is skipped and reported, never shown.
 * Tabs of the app share the runs: each write and its bounding are one transaction.
 */
export function keepRuns(options: KeepRunsOptions): RunKeeper {
  if (typeof options?.name !== 'string' || options.name.length === 0)
    throw new TypeError("keepRuns needs a name for its database: keepRuns({ name: 'my-app' })")
  const maxRuns = Math.max(1, options.maxRuns ?? 20)
  const maxBytes = Math.max(1, options.maxBytes ?? 5 * 2 ** 20)
  const databaseName = `advisor-chain-devtools:${options.name}`
  return (store, restore) => {
    const connection = new IndexedDBConnection({
      factory: options.indexedDB,
      name: databaseName,
      version: DB_VERSION,
      upgrade: (db) => {
        if (!db.objectStoreNames.contains(RUNS)) db.createObjectStore(RUNS)
        if (!db.objectStoreNames.contains(SIZES)) db.createObjectStore(SIZES, { keyPath: 'id' })
      },
      instead: 'the devtools keep their runs for this page load only',
    })
    /** Runs `body` in a transaction over both stores; settles when it is committed, or with its error. */
    const transaction = async (mode: IDBTransactionMode, body: (tx: IDBTransaction) => void): Promise<void> => {
      const db = await connection.open((why, cause) => new Error(why, { cause }))
      return new Promise((resolve, reject) => {
        let tx: IDBTransaction
        try {
          tx = db.transaction([RUNS, SIZES], mode)
        } catch (error) {
          // The connection closed under us (another tab upgrades or deletes the database): the next use reopens it.
          connection.forget()
          return reject(error)
        }
        body(tx)
        tx.oncomplete = () => resolve()
        tx.onerror = () => reject(tx.error ?? new Error(`IndexedDB '${db.name}' refused the transaction`))
        tx.onabort = () => reject(tx.error ?? new Error(`IndexedDB '${db.name}' aborted the transaction`))
      })
    }
    const state = (): KeptRunsState => store.getState().kept ?? { restored: new Set(), problems: [], loaded: false }
    const report = (problem: string) => {
      // Not on a server (its render of a page has no IndexedDB, and nothing to keep): the panel says it in the page.
      if (typeof document !== 'undefined') console.warn(`advisor-chain devtools: ${problem}`)
      // The latest few: a full disk would otherwise add a line for every run.
      store.setState({ kept: { ...state(), problems: [...state().problems, problem].slice(-MAX_PROBLEMS) } })
    }
    /** The version of each run as last written (or restored): a run is written again only when it changed. */
    const written = new Map<string, number>()
    let writes = Promise.resolve()
    let savedAt = 0

    const opened = read(transaction).then(
      ({ records, problems }) => {
        const events: TraceEvent[] = []
        const ids = new Set<string>()
        for (const record of records) {
          try {
            // A run already shown (same id) is not added again.
            if (store.run(record.id)) continue
            const trace = importTrace(record.trace as string)
            const other = trace.find((event) => event.runId !== record.id)
            if (other) throw new Error(`it holds events of another run, '${other.runId.slice(0, 80)}'`)
            events.push(...trace)
            ids.add(record.id)
          } catch (error) {
            problems.push(`The kept run '${record.id}' was not restored: ${(error as Error).message}`)
          }
        }
        restore(events)
        for (const id of ids) written.set(id, store.run(id)?.version ?? 0)
        store.setState({ kept: { ...state(), restored: ids, loaded: true } })
        problems.forEach(report)
        return true
      },
      (error: unknown) => {
        store.setState({ kept: { ...state(), loaded: true } })
        report(`Runs are not kept: ${(error as Error).message}`)
        return false
      },
    )

    const keep = (run: RunView) => {
      written.set(run.id, run.version)
      const trace = exportTrace(run.events)
      const bytes = new TextEncoder().encode(trace).length
      if (bytes > maxBytes)
        return report(`Run '${run.id}' was not kept: its trace has ${bytes} bytes, over maxBytes (${maxBytes})`)
      // Strictly later than the run this tab wrote before, even within one millisecond.
      savedAt = Math.max(performance.timeOrigin + performance.now(), savedAt + 0.001)
      const size: KeptSize = { id: run.id, savedAt, bytes }
      writes = writes
        .then(() => transaction('readwrite', (tx) => write(tx, trace, size, maxRuns, maxBytes)))
        .catch((error: unknown) => {
          if (isQuotaExceeded(error))
            report(
              `Run '${run.id}' was not kept: the storage quota of this site is used up (QuotaExceededError). Clear the devtools to free what they keep, or give keepRuns a smaller maxBytes.`,
            )
          else report(`Run '${run.id}' was not kept: ${(error as Error).message}`)
        })
    }
    // Once the kept runs are shown: a finished run of this page (not one read from a file) is written when it changed.
    const keepFinished = () => {
      for (const run of store.runs())
        if (run.live && run.status !== 'running' && written.get(run.id) !== run.version) keep(run)
    }
    // A database that could not be opened was reported once; the runs are not kept then.
    void opened.then((readable) => {
      if (!readable) return
      keepFinished()
      store.subscribe(keepFinished)
    })
    const restored = opened.then(() => {})

    const forget = () => {
      written.clear()
      store.setState({ kept: { ...state(), restored: new Set(), problems: [] } })
      return (writes = writes
        .then(() => transaction('readwrite', (tx) => [RUNS, SIZES].forEach((name) => tx.objectStore(name).clear())))
        .catch((error: unknown) => report(`The kept runs could not be forgotten: ${(error as Error).message}`)))
    }
    // The devtools' Clear forgets the kept runs too: after a reload they would come back otherwise.
    const clear = store.clear.bind(store)
    store.clear = () => {
      clear()
      void forget()
    }
    return { databaseName, restored, saved: () => restored.then(() => writes), forget }
  }
}

/** The kept runs, oldest first; a record without its size (or a size without its record) is a problem. */
async function read(
  transaction: (mode: IDBTransactionMode, body: (tx: IDBTransaction) => void) => Promise<void>,
): Promise<{ records: Array<{ id: string; trace: unknown }>; problems: string[] }> {
  let sizes: unknown[] = []
  let keys: IDBValidKey[] = []
  let traces: unknown[] = []
  await transaction('readonly', (tx) => {
    const sizeRequest = tx.objectStore(SIZES).getAll()
    const keyRequest = tx.objectStore(RUNS).getAllKeys()
    const traceRequest = tx.objectStore(RUNS).getAll()
    sizeRequest.onsuccess = () => (sizes = sizeRequest.result as unknown[])
    keyRequest.onsuccess = () => (keys = keyRequest.result)
    traceRequest.onsuccess = () => (traces = traceRequest.result as unknown[])
  })
  const savedAt = new Map<unknown, number>()
  for (const size of sizes as Array<Partial<KeptSize>>)
    savedAt.set(size.id, typeof size.savedAt === 'number' ? size.savedAt : 0)
  const problems: string[] = []
  const records = keys.flatMap((key, index) => {
    if (typeof key !== 'string' || !savedAt.has(key)) {
      problems.push(`The kept run ${JSON.stringify(key).slice(0, 80)} was not restored: it has no size record`)
      return []
    }
    return [{ id: key, trace: traces[index], savedAt: savedAt.get(key)! }]
  })
  records.sort((a, b) => a.savedAt - b.savedAt || (a.id < b.id ? -1 : 1))
  return { records, problems }
}

/**
 * Writes one run and drops the oldest runs until the database is within its bounds, in one
 * transaction: two tabs writing at once are applied one after the other, none lost, none doubled.
 */
function write(tx: IDBTransaction, trace: string, size: KeptSize, maxRuns: number, maxBytes: number): void {
  const sizes = tx.objectStore(SIZES)
  const all = sizes.getAll()
  all.onsuccess = () => {
    const kept = (all.result as KeptSize[]).filter((other) => other.id !== size.id)
    kept.push(size)
    kept.sort((a, b) => b.savedAt - a.savedAt || (a.id < b.id ? 1 : -1))
    let bytes = 0
    const drop = kept.filter((other, index) => (bytes += Number(other.bytes) || 0) > maxBytes || index >= maxRuns)
    tx.objectStore(RUNS).put(trace, size.id)
    sizes.put(size)
    for (const other of drop) {
      sizes.delete(other.id)
      tx.objectStore(RUNS).delete(other.id)
    }
  }
}
