// Share of a long observed tool loop's CPU profile spent in the garbage collector (Node's sampling
// profiler, the same one DevTools records).
import { Session } from 'node:inspector/promises'
import { report, round } from './measure'
import { handWrittenLoop, loopingClient } from './looping-client'

const ROUNDS = 1000
const run = loopingClient(ROUNDS)
for (let i = 0; i < 5; i++) await run()

/** The garbage collector's share of a CPU profile of `loop` run over and over for three seconds. */
async function gcShare(loop: () => Promise<unknown>): Promise<{ loops: number; gcPercent: number }> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 100 })
  await session.post('Profiler.start')
  const start = performance.now()
  let loops = 0
  for (; performance.now() - start < 3000; loops++) await loop()
  const { profile } = await session.post('Profiler.stop')
  session.disconnect()
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]))
  let total = 0
  let collector = 0
  profile.samples!.forEach((id, i) => {
    const delta = profile.timeDeltas![i] ?? 0
    total += delta
    if (nodes.get(id) === '(garbage collector)') collector += delta
  })
  return { loops, gcPercent: round((100 * collector) / total, 1) }
}

const handWritten = handWrittenLoop(ROUNDS)
for (let i = 0; i < 5; i++) await handWritten()
const observed = await gcShare(run)
const baseline = await gcShare(handWritten)

report('gc-share', {
  what: 'garbage collector share of the CPU profile of observed 1,000-round tool loops (ObserverAdvisor, default options, no-op sink), and of the same conversation in a hand-written loop',
  rounds: ROUNDS,
  loops: observed.loops,
  gcPercent: observed.gcPercent,
  handWrittenGcPercent: baseline.gcPercent,
})
