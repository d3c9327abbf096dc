import type { Message, RoundView, RunView } from 'advisor-chain/trace'
import { promptOf } from './prompt'

// A fork next to the run it forks, round by round: the rounds before the fork are the original's
// (the fork took them from its trace); from the forked round on, both ran and may differ.

export interface ComparedRound {
  round: number
  original: RoundView | undefined
  /** Undefined for a round the fork took from the original. */
  fork: RoundView | undefined
  /** Before the forked round: the fork did not run it, it reused the original's. */
  inherited: boolean
  promptDiffers: boolean
  answerDiffers: boolean
}

export interface RunComparison {
  forkedAt: number
  rounds: ComparedRound[]
  /** The first round whose prompt or answer differs between the two runs. */
  firstDifference: number | undefined
}

/** Compares a fork with its original; undefined when `fork` is not a fork of `original`. */
export function compareRuns(original: RunView, fork: RunView): RunComparison | undefined {
  if (fork.forkOf?.runId !== original.id) return undefined
  const forkedAt = fork.forkOf.round
  const numbers = [...new Set([...original.rounds, ...fork.rounds].map((round) => round.round))].sort((a, b) => a - b)
  const rounds = numbers.map((number): ComparedRound => {
    const before = original.rounds.find((round) => round.round === number)
    if (number < forkedAt)
      return {
        round: number,
        original: before,
        fork: undefined,
        inherited: true,
        promptDiffers: false,
        answerDiffers: false,
      }
    const after = fork.rounds.find((round) => round.round === number)
    return {
      round: number,
      original: before,
      fork: after,
      inherited: false,
      promptDiffers: !sameMessages(promptOf(original, before), promptOf(fork, after)),
      answerDiffers: answerOf(before) !== answerOf(after),
    }
  })
  const first = rounds.find((round) => round.promptDiffers || round.answerDiffers)
  return { forkedAt, rounds, firstDifference: first?.round }
}

function sameMessages(a: readonly Message[] | undefined, b: readonly Message[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.length === b.length && a.every((message, index) => JSON.stringify(message) === JSON.stringify(b[index]))
}

/** What a round answered, as one comparable text: the model's text, its tool calls and their results. */
export function answerOf(round: RoundView | undefined): string | undefined {
  const response = round?.model?.response
  if (!response) return undefined
  const calls = response.toolCalls.map((call) => {
    const result = round.tools.find((tool) => tool.id === call.id)?.result
    return `${call.name}(${call.arguments})${result === undefined ? '' : ` → ${result}`}`
  })
  return [response.text, ...calls].filter((part) => part !== '').join('\n')
}
