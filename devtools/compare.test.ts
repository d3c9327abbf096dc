// Runs recorded for real, through the library's layers (a test may reach past the trace entry).
import { ObserverAdvisor } from '../src/advisors'
import { ChatClient } from '../src/client'
import { ScriptedChatModel, type ScriptStep } from '../src/models'
import { forkRun } from '../src/replay'
import { defineTool } from '../src/tools'
import { TraceCollector } from 'advisor-chain/trace'
import { TraceReader } from 'advisor-chain/trace'
import { describe, expect, it } from 'vitest'
import { compareRuns } from './compare'

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: ({ city }) => `sunny in ${String(city)}`,
})

const sink = () => new TraceCollector()

function client(script: ScriptStep[], collector: TraceCollector) {
  return ChatClient.builder(new ScriptedChatModel(script))
    .defaultTools(weather)
    .defaultAdvisors(new ObserverAdvisor({ sink: collector, performanceTrack: false }))
    .build()
}

/** A two-round tool run and a fork of its round 2, read as the panel reads them. */
async function originalAndFork(forkAnswer: string, toolResults?: Record<string, string>) {
  const collector = sink()
  await client(
    [{ toolCalls: [{ id: 't1', name: 'weather', arguments: { city: 'Oslo' } }] }, { text: 'Sunny.' }],
    collector,
  )
    .prompt('Weather in Oslo?')
    .call()
    .content()
  const fork = await forkRun(client([{ text: forkAnswer }], collector), {
    trace: [...collector.events],
    round: 2,
    ...(toolResults ? { edits: { toolResults } } : {}),
  })
  const reader = new TraceReader()
  for (const event of collector.events) reader.add(event, true)
  const original = reader.runs().find((run) => run.id !== fork.runId)!
  return { original, fork: reader.run(fork.runId)! }
}

describe('comparing a fork with its original', () => {
  it('aligns the rounds, takes the ones before the fork from the original, and finds the first difference', async () => {
    const { original, fork } = await originalAndFork('Rainy.', { t1: 'rain in Oslo' })
    const comparison = compareRuns(original, fork)!
    expect(comparison.forkedAt).toBe(2)
    expect(
      comparison.rounds.map((round) => [round.round, round.inherited, round.promptDiffers, round.answerDiffers]),
    ).toEqual([
      [1, true, false, false],
      [2, false, true, true],
    ])
    expect(comparison.firstDifference).toBe(2)
  })

  it('finds no difference when the fork sent the same prompt and got the same answer', async () => {
    const { original, fork } = await originalAndFork('Sunny.')
    expect(compareRuns(original, fork)!.firstDifference).toBeUndefined()
  })

  it('compares only a fork with the run it forks', async () => {
    const { original, fork } = await originalAndFork('Sunny.')
    expect(compareRuns(fork, original)).toBeUndefined()
  })
})
