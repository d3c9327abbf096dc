import { StrictMode, act } from 'react'
import { createRoot } from 'react-dom/client'
import { exportTrace, importTrace, type TraceEvent } from 'advisor-chain/trace'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sampleRun } from '../src/trace/testing/sample-trace'
import { keepRuns, type KeepRunsOptions } from './kept-runs'
import { AdvisorDevtoolsPanel } from './panel'
import { createDevtoolsStore, type DevtoolsStore } from './store'

// Runs kept over page loads, in the browser's real IndexedDB: each "page load" is a new store on the
// same database, each "tab" a store with its own connection.

let names = 0
const databases: string[] = []
const fresh = () => `kept-runs-test-${Date.now()}-${names++}`

afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(databases.splice(0).map((name) => deleteDatabase(name)))
})

function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name)
    request.onsuccess = () => resolve()
    request.onerror = () => reject(request.error ?? new Error(`could not delete ${name}`))
  })
}

/** A page load: a store that keeps its runs in the database `name`, once the kept runs are shown. */
async function pageLoad(name: string, options: Omit<KeepRunsOptions, 'name'> = {}): Promise<DevtoolsStore> {
  databases.push(`advisor-chain-devtools:${name}`)
  const store = createDevtoolsStore({ keep: keepRuns({ name, ...options }) })
  await store.kept!.restored
  return store
}

/** Records runs as an observer would, and waits until the keeper wrote them. */
async function record(store: DevtoolsStore, ...runs: TraceEvent[][]): Promise<void> {
  for (const run of runs) for (const event of run) store.emit(event)
  store.flush()
  await store.kept!.saved()
}

const ids = (store: DevtoolsStore) => store.runs().map((run) => run.id)

/** Writes a record as a keeper would, but with `trace` as given (what another version, or a broken disk, left). */
function writeRecord(name: string, id: string, trace: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(`advisor-chain-devtools:${name}`)
    request.onerror = () => reject(request.error ?? new Error('open failed'))
    request.onsuccess = () => {
      const db = request.result
      const tx = db.transaction(['runs', 'sizes'], 'readwrite')
      tx.objectStore('runs').put(trace, id)
      tx.objectStore('sizes').put({ id, savedAt: Date.now(), bytes: 10 })
      tx.oncomplete = () => (db.close(), resolve())
      tx.onerror = () => reject(tx.error ?? new Error('write failed'))
    }
  })
}

describe('keepRuns: the devtools keep finished runs over page loads', () => {
  it('shows the finished runs of the previous page load again, marked as restored, as an imported trace would', async () => {
    const name = fresh()
    const first = await pageLoad(name)
    const done = sampleRun({ runId: 'done', question: 'Kept?' })
    const running = sampleRun({ runId: 'running', stopAfter: 4 })
    await record(first, done, running)

    const second = await pageLoad(name)
    // Only the finished run was kept; it is shown as a run from a file is.
    expect(ids(second)).toEqual(['done'])
    const restored = second.run('done')!
    expect(restored.live).toBe(false)
    expect(restored.label).toBe('Kept?')
    expect(second.getState().kept?.restored).toEqual(new Set(['done']))
    expect(second.getState().source).toEqual({ kind: 'live' })
    // "Re-run from here" forks from the run's events: the same as those of the run imported from a file.
    const imported = createDevtoolsStore()
    imported.importSession(exportTrace(first.run('done')!.events))
    expect(restored.events).toEqual(imported.run('done')!.events)
    expect(restored.events).toEqual(importTrace(exportTrace(done)))
  })

  it('never writes a restored run again, nor a run still running', async () => {
    const name = fresh()
    const first = await pageLoad(name)
    await record(first, sampleRun({ runId: 'a' }))
    const second = await pageLoad(name)
    const put = vi.spyOn(IDBObjectStore.prototype, 'put')
    second.emit(sampleRun({ runId: 'b' })[0]!)
    second.flush()
    await second.kept!.saved()
    expect(put).not.toHaveBeenCalled()
  })

  it('keeps at most maxRuns runs, the newest, and drops the oldest', async () => {
    const name = fresh()
    const first = await pageLoad(name, { maxRuns: 2 })
    await record(first, sampleRun({ runId: 'one' }))
    await record(first, sampleRun({ runId: 'two' }))
    await record(first, sampleRun({ runId: 'three' }))
    const second = await pageLoad(name, { maxRuns: 2 })
    expect(ids(second)).toEqual(['three', 'two'])
  })

  it('keeps at most maxBytes, dropping the oldest runs, and reports a run larger than that', async () => {
    const name = fresh()
    const bytes = new TextEncoder().encode(exportTrace(sampleRun({ runId: 'one' }))).length
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const first = await pageLoad(name, { maxBytes: Math.floor(bytes * 2.5) })
    await record(first, sampleRun({ runId: 'one' }))
    await record(first, sampleRun({ runId: 'two' }))
    await record(first, sampleRun({ runId: 'six' }))
    await record(first, sampleRun({ runId: 'huge', answer: 'x'.repeat(bytes * 3) }))
    expect(first.getState().kept?.problems).toEqual([
      expect.stringMatching(/^Run 'huge' was not kept: its trace has \d+ bytes, over maxBytes \(\d+\)$/),
    ])
    expect(warn).toHaveBeenCalledOnce()
    const second = await pageLoad(name)
    expect(ids(second)).toEqual(['six', 'two'])
  })

  it('reports a run the storage quota has no room for, and the runs kept before stay', async () => {
    const name = fresh()
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const first = await pageLoad(name)
    await record(first, sampleRun({ runId: 'kept' }))
    // The site's storage is full: IndexedDB aborts the write with a QuotaExceededError.
    const { transaction } = Object.getOwnPropertyDescriptors(IDBDatabase.prototype)
    const full = vi.spyOn(IDBDatabase.prototype, 'transaction').mockImplementation(function (
      this: IDBDatabase,
      ...args: Parameters<IDBDatabase['transaction']>
    ) {
      const tx = (transaction.value as IDBDatabase['transaction']).apply(this, args)
      if (args[1] === 'readwrite') {
        Object.defineProperty(tx, 'error', {
          value: new DOMException('The quota has been exceeded.', 'QuotaExceededError'),
        })
        queueMicrotask(() => tx.abort())
      }
      return tx
    })
    await record(first, sampleRun({ runId: 'no-room' }))
    expect(first.getState().kept?.problems).toEqual([
      "Run 'no-room' was not kept: the storage quota of this site is used up (QuotaExceededError). Clear the devtools to free what they keep, or give keepRuns a smaller maxBytes.",
    ])
    full.mockRestore()
    expect(ids(await pageLoad(name))).toEqual(['kept'])
  })

  it('loses and doubles no run when two tabs write at once, and the bound holds over both', async () => {
    const name = fresh()
    const [tabA, tabB] = await Promise.all([pageLoad(name, { maxRuns: 10 }), pageLoad(name, { maxRuns: 10 })])
    const runsOf = (tab: string) => [1, 2, 3].map((n) => sampleRun({ runId: `${tab}${n}` }))
    await Promise.all([record(tabA, ...runsOf('a')), record(tabB, ...runsOf('b'))])
    const later = await pageLoad(name)
    expect([...ids(later)].sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3'])
    expect(later.eventCount()).toBe(6 * sampleRun().length)

    const bounded = fresh()
    const [tabC, tabD] = await Promise.all([pageLoad(bounded, { maxRuns: 4 }), pageLoad(bounded, { maxRuns: 4 })])
    await Promise.all([record(tabC, ...runsOf('c')), record(tabD, ...runsOf('d'))])
    expect(ids(await pageLoad(bounded))).toHaveLength(4)
  })

  it('skips and reports a corrupt record, shows the others, and the panel renders', async () => {
    const name = fresh()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const first = await pageLoad(name)
    await record(first, sampleRun({ runId: 'good', question: 'Still here?' }))
    await writeRecord(name, 'not-json', '{"format":')
    await writeRecord(name, 'not-text', { format: 'advisor-chain-trace' })
    await writeRecord(name, 'bad-event', exportTrace([{ ...sampleRun({ runId: 'bad-event' })[0]!, seq: -1 }]))
    await writeRecord(name, 'other-run', exportTrace(sampleRun({ runId: 'someone-else' })))

    const second = await pageLoad(name)
    expect(ids(second)).toEqual(['good'])
    const problems = second.getState().kept!.problems
    expect(problems).toHaveLength(4)
    expect(problems.find((problem) => problem.includes("'not-json'"))).toMatch(/not restored: The file is not JSON/)
    expect(problems.find((problem) => problem.includes("'not-text'"))).toMatch(
      /not restored: A trace file must be text/,
    )
    expect(problems.find((problem) => problem.includes("'bad-event'"))).toMatch(/not restored: event 0 \(run-start\)/)
    expect(problems.find((problem) => problem.includes("'other-run'"))).toMatch(
      /not restored: it holds events of another run, 'someone-else'/,
    )
    expect(warn).toHaveBeenCalledTimes(4)

    const container = document.createElement('div')
    document.body.append(container)
    const root = createRoot(container)
    await act(async () => root.render(<StrictMode>{<AdvisorDevtoolsPanel store={second} />}</StrictMode>))
    const shadow = container.querySelector('[data-advisor-chain-devtools-host]')!.shadowRoot!
    expect(shadow.querySelector('[data-testid="restored-note"]')?.textContent).toBe(
      '1 run restored from a previous page load. Clear forgets them.',
    )
    expect(shadow.querySelectorAll('[data-testid^="kept-problem-"]')).toHaveLength(4)
    expect(shadow.querySelector('.detail-head')?.textContent).toContain('run good · from a previous page load')
    await act(async () => root.unmount())
    container.remove()
  })

  it('forgets the kept runs when the devtools are cleared', async () => {
    const name = fresh()
    const first = await pageLoad(name)
    await record(first, sampleRun({ runId: 'gone' }))
    const second = await pageLoad(name)
    expect(ids(second)).toEqual(['gone'])
    second.clear()
    await second.kept!.saved()
    expect(second.getState().kept?.restored.size).toBe(0)
    expect(ids(await pageLoad(name))).toEqual([])
  })

  it('reports a database a newer version of the app upgraded, and the devtools go on', async () => {
    const name = fresh()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.open(`advisor-chain-devtools:${name}`, 7)
      request.onsuccess = () => (request.result.close(), resolve())
      request.onerror = () => reject(request.error ?? new Error('open failed'))
    })
    const store = await pageLoad(name)
    expect(store.getState().kept).toEqual({
      restored: new Set(),
      loaded: true,
      problems: [expect.stringContaining('Runs are not kept: Could not open IndexedDB')],
    })
    expect(store.getState().kept?.problems[0]).toContain('a newer version of this app upgraded it: reload the page')
    expect(warn).toHaveBeenCalledOnce()
    await record(store, sampleRun({ runId: 'shown' }))
    expect(ids(store)).toEqual(['shown'])
  })

  it('needs a name', () => {
    expect(() => keepRuns({ name: '' })).toThrow("keepRuns needs a name for its database: keepRuns({ name: 'my-app' })")
  })
})
