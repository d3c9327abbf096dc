import type { RunView } from 'advisor-chain/trace'
import { useState } from 'react'
import { answerOf, compareRuns, type ComparedRound } from '../compare'
import { diffPrompts, promptOf } from '../prompt'
import type { DevtoolsStore } from '../store'
import { plural, shortId } from './format'
import { Messages } from './Messages'

/** A fork and its original side by side: rounds aligned, the first differing round marked, prompt and answer diffs. */
export function Compare({ store, fork }: { store: DevtoolsStore; fork: RunView }) {
  const original = fork.forkOf && store.run(fork.forkOf.runId)
  const comparison = original && compareRuns(original, fork)
  const [chosen, setChosen] = useState<number>()
  if (!fork.forkOf) return <p className="empty">This run is not a fork.</p>
  if (!original || !comparison)
    return (
      <p className="empty">
        The run this one forks (#{shortId(fork.forkOf.runId)}) is no longer in the panel, so there is nothing to compare
        it with.
      </p>
    )
  const shown = chosen ?? comparison.firstDifference ?? comparison.forkedAt
  const detail = comparison.rounds.find((round) => round.round === shown)
  return (
    <section className="compare" aria-label="Fork compared with its original" data-testid="compare">
      <p className="compare-head">
        Fork of{' '}
        <button type="button" className="link" onClick={() => store.select({ runId: original.id })}>
          #{shortId(original.id)}
        </button>{' '}
        at round {comparison.forkedAt}.{' '}
        <span data-testid="first-difference">
          {comparison.firstDifference === undefined
            ? 'No difference: the same prompts got the same answers.'
            : `First difference: round ${comparison.firstDifference}.`}
        </span>
      </p>
      <div className="compare-grid" aria-label="Rounds side by side">
        <div className="compare-row head" aria-hidden="true">
          <span>Round</span>
          <span>Original #{shortId(original.id)}</span>
          <span>Fork #{shortId(fork.id)}</span>
        </div>
        {comparison.rounds.map((round) => (
          <button
            type="button"
            key={round.round}
            className={`compare-row${differs(round) ? ' differs' : ''}${round.round === comparison.firstDifference ? ' first' : ''}`}
            aria-current={round.round === shown ? 'true' : undefined}
            data-testid="compare-round"
            data-differs={differs(round) ? 'true' : 'false'}
            onClick={() => setChosen(round.round)}
          >
            <span>
              {round.round}
              {round.round === comparison.firstDifference && <span className="pill">first difference</span>}
            </span>
            <span className="answer">{summary(answerOf(round.original))}</span>
            <span className="answer">
              {round.inherited ? <span className="muted">from the original</span> : summary(answerOf(round.fork))}
            </span>
          </button>
        ))}
      </div>
      {detail && !detail.inherited && <RoundDiff original={original} fork={fork} round={detail} />}
    </section>
  )
}

function differs(round: ComparedRound): boolean {
  return round.promptDiffers || round.answerDiffers
}

function summary(answer: string | undefined): string {
  if (answer === undefined) return '—'
  return answer.length > 160 ? `${answer.slice(0, 157)}…` : answer || '(empty)'
}

function RoundDiff({ original, fork, round }: { original: RunView; fork: RunView; round: ComparedRound }) {
  const before = promptOf(original, round.original)
  const after = promptOf(fork, round.fork)
  const diff = before && after ? diffPrompts(before, after) : undefined
  const added = diff ? [...diff.changes.values()].filter((change) => change === 'added').length : 0
  return (
    <div className="compare-detail" data-testid="compare-detail">
      <div className="caption">Round {round.round}: answers</div>
      <div className="compare-answers">
        <div>
          <div className="muted">Original</div>
          <pre data-testid="original-answer">{answerOf(round.original) ?? 'not recorded'}</pre>
        </div>
        <div>
          <div className="muted">Fork</div>
          <pre data-testid="fork-answer" className={round.answerDiffers ? 'changed' : undefined}>
            {answerOf(round.fork) ?? 'not recorded'}
          </pre>
        </div>
      </div>
      <div className="caption">Round {round.round}: prompt, fork against original</div>
      {diff ? (
        <>
          <p className="muted" data-testid="compare-prompt-summary">
            {round.promptDiffers
              ? `${plural(added, 'message')} in the fork's prompt not in the original's, ${diff.changes.size - added} of the original's not in the fork's.`
              : 'The same prompt.'}
          </p>
          {round.promptDiffers && <Messages messages={diff.messages} changes={diff.changes} />}
        </>
      ) : (
        <p className="muted">One of the two prompts was not recorded.</p>
      )}
    </div>
  )
}
