import { TraceReader } from 'advisor-chain/trace'
import { describe, expect, it } from 'vitest'
import { sampleRun } from '../../src/trace/testing/sample-trace'
import { FOLLOW_ROUND_MS, followInspector } from './inspector-change'

/** A live run of three tool rounds and its answer, fed to a reader up to the start of `round`. */
function loop() {
  const events = sampleRun({ toolRounds: 3 })
  const reader = new TraceReader()
  let next = 0
  const upTo = (round: number) => {
    while (next < events.length && events[next]!.round <= round) reader.add(events[next++]!, true)
    return reader.run('run-1')!
  }
  return { upTo, rest: () => upTo(Infinity) }
}

describe('the inspector following the last round of a run', () => {
  it('shows each change of the round it shows at once', () => {
    const events = sampleRun({ toolRounds: 3 })
    const reader = new TraceReader()
    const end = events.findLastIndex((event) => event.round === 1)
    for (const event of events.slice(0, end)) reader.add(event, true)
    const run = reader.run('run-1')!
    const first = followInspector(undefined, run, undefined, 0)
    reader.add(events[end]!, true)
    const next = followInspector(first, run, undefined, 10)
    expect(next.round).toBe(1)
    expect(next.change).not.toBe(first.change)
  })

  it('moves on to a newer round of a running loop at most once a second', () => {
    const { upTo } = loop()
    const shown = followInspector(undefined, upTo(1), undefined, 0)
    const run = upTo(2)
    const soon = followInspector(shown, run, undefined, FOLLOW_ROUND_MS / 2)
    expect(soon).toBe(shown)
    const after = followInspector(soon, run, undefined, FOLLOW_ROUND_MS)
    expect(after.round).toBe(2)
    expect(after.change).not.toBe(shown.change)
    // The next move waits a second from this one.
    expect(followInspector(after, upTo(3), undefined, FOLLOW_ROUND_MS + 10).round).toBe(2)
  })

  it('shows the last round of a run that ended, and another run, at once', () => {
    const { upTo, rest } = loop()
    const shown = followInspector(undefined, upTo(1), undefined, 0)
    const ended = rest()
    expect(ended.status).not.toBe('running')
    expect(followInspector(shown, ended, undefined, 1).round).toBe(ended.rounds.at(-1)!.round)
    const other = loop().upTo(2)
    expect(followInspector(shown, other, undefined, 1)).toMatchObject({ run: other, round: 2 })
  })

  it('follows only the status of an earlier round the user picked', () => {
    const { upTo } = loop()
    const run = upTo(2)
    const picked = { runId: run.id, round: 1 }
    const shown = followInspector(undefined, run, picked, 0)
    expect(shown.change).toBe('running')
  })
})
