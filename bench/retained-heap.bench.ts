// Heap an observed 1,000-round tool loop leaves behind: while its answer is held, and once it is
// released (the sink has had every event by then). Node only: it needs --expose-gc, which
// bench/run.mjs passes.
import { report, round } from './measure'
import { loopingClient } from './looping-client'

const ROUNDS = 1000
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('Run with node --expose-gc (npm run bench does)')

/** A full collection after the current job, so nothing of the run is kept alive by a pending reaction. */
async function collect(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0))
    gc!()
  }
  return process.memoryUsage().heapUsed
}

const run = loopingClient(ROUNDS)
for (let i = 0; i < 5; i++) await run()

const before = await collect()
let answer: unknown = await run()
const held = await collect()
answer = undefined
const released = await collect()

report('retained-heap', {
  what: 'heap after a full GC, observed 1,000-round tool loop (ObserverAdvisor, default options, no-op sink)',
  rounds: ROUNDS,
  retainedBytesPerRoundWhileAnswerHeld: Math.round((held - before) / ROUNDS),
  retainedKBAfterRelease: round((released - before) / 1024, 1),
  answerKept: answer === undefined ? 'released' : 'held',
})
