import { afterEach, describe, expect, it, vi } from 'vitest'
import { sampleRun } from '../src/trace/testing/sample-trace'
import { keepRuns } from './kept-runs'
import { createDevtoolsStore } from './store'

afterEach(() => vi.restoreAllMocks())

describe('keepRuns where there is no IndexedDB (a server rendering the page)', () => {
  it('keeps nothing, says why in the state, logs nothing, and the store records as before', async () => {
    const warn = vi.spyOn(console, 'warn')
    const store = createDevtoolsStore({ keep: keepRuns({ name: 'ssr' }) })
    await store.kept!.restored
    expect(store.getState().kept).toEqual({
      restored: new Set(),
      loaded: true,
      problems: [expect.stringMatching(/^Runs are not kept: This environment has no IndexedDB .*this page load only$/)],
    })
    for (const event of sampleRun()) store.emit(event)
    store.flush()
    await store.kept!.saved()
    expect(store.runs().map((run) => run.id)).toEqual(['run-1'])
    expect(warn).not.toHaveBeenCalled()
  })
})
