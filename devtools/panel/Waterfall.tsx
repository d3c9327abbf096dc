import type { DevtoolsStore, Selection } from '../store'
import type { RoundView, RunView } from '../trace-model'
import { duration } from './format'
import { useDevtools } from './use-devtools'
import { WindowedList } from './windowed-list'

type Row =
  | { kind: 'round'; round: RoundView }
  | { kind: 'model'; round: RoundView }
  | { kind: 'tool'; round: RoundView; index: number }
  | { kind: 'validation'; round: RoundView; index: number }
  | { kind: 'retry'; round: RoundView; index: number }

function rowsOf(run: RunView): Row[] {
  return run.rounds.flatMap((round): Row[] => [
    { kind: 'round', round },
    ...(round.model ? [{ kind: 'model' as const, round }] : []),
    ...round.tools.map((_, index) => ({ kind: 'tool' as const, round, index })),
    ...round.validations.map((_, index) => ({ kind: 'validation' as const, round, index })),
    ...round.retries.map((_, index) => ({ kind: 'retry' as const, round, index })),
  ])
}

function selectionOf(row: Row, runId: string): Selection {
  switch (row.kind) {
    case 'round':
      return { runId, round: row.round.round }
    case 'model':
      return { runId, round: row.round.round, span: { kind: 'model' } }
    case 'tool':
      return { runId, round: row.round.round, span: { kind: 'tool', id: row.round.tools[row.index]!.id } }
    case 'validation':
      return {
        runId,
        round: row.round.round,
        span: { kind: 'validation', attempt: row.round.validations[row.index]!.attempt },
      }
    case 'retry':
      return { runId, round: row.round.round, span: { kind: 'retry', attempt: row.round.retries[row.index]!.attempt } }
  }
}

function isSelected(selection: Selection | undefined, target: Selection): boolean {
  return (
    !!selection && selection.round === target.round && JSON.stringify(selection.span) === JSON.stringify(target.span)
  )
}

/**
 * The run on a time axis: a row per round, with the model call (its streaming part shaded), each
 * tool execution (parallel calls side by side), validation attempts and retries nested under it.
 */
export function Waterfall({ store, run }: { store: DevtoolsStore; run: RunView }) {
  const selection = useDevtools(store, (state) => state.selection)
  const now = run.end ?? Math.max(run.start, ...run.events.slice(-1).map((event) => event.t))
  const span = Math.max(now - run.start, 1)
  const x = (t: number) => `${Math.max(0, Math.min(100, ((t - run.start) / span) * 100))}%`
  const width = (from: number, to: number | undefined) => `${Math.max(0.4, (((to ?? now) - from) / span) * 100)}%`
  const rows = rowsOf(run)
  const ticks = [0, 0.25, 0.5, 0.75, 1]
  const header = (
    <div className="axis" aria-hidden="true">
      <div className="names">{run.rounds.length} rounds</div>
      <div className="ticks">
        {ticks.map((tick) => (
          <span key={tick} className="tick" style={{ left: `${tick * 100}%` }}>
            {duration(span * tick)}
          </span>
        ))}
      </div>
    </div>
  )
  if (rows.length === 0)
    return (
      <p className="empty">This run has no rounds recorded (the observer may sit outside the tool loop; see Chain).</p>
    )
  return (
    <WindowedList
      className="waterfall"
      items={rows}
      rowHeight={26}
      label="Timeline"
      header={header}
      render={(row) => {
        const target = selectionOf(row, run.id)
        const { round } = row
        let name = ''
        let what = ''
        let bar: React.ReactNode = null
        let time: number | undefined
        let kind = ''
        let bad = false
        if (row.kind === 'round') {
          name = `Round ${round.round}`
          what = round.status === 'running' ? 'running…' : round.hasProblem ? 'had a problem' : ''
          time = round.end === undefined ? undefined : round.end - round.start
          bad = round.hasProblem
          bar = <span className="bar round" style={{ left: x(round.start), width: width(round.start, round.end) }} />
        } else if (row.kind === 'model') {
          const model = round.model!
          kind = 'model'
          name = 'model'
          const response = model.response
          what = response
            ? response.toolCalls.length
              ? `→ ${response.toolCalls.map((call) => call.name).join(', ')}`
              : response.text.slice(0, 80)
            : 'waiting…'
          time = model.end === undefined ? undefined : model.end - model.start
          const total = (model.end ?? now) - model.start
          const streaming =
            model.firstToken === undefined ? 0 : ((model.end ?? now) - model.firstToken) / Math.max(total, 0.001)
          bar = (
            <span className="bar model" style={{ left: x(model.start), width: width(model.start, model.end) }}>
              {streaming > 0 && <span className="streaming" style={{ width: `${Math.min(100, streaming * 100)}%` }} />}
            </span>
          )
        } else if (row.kind === 'tool') {
          const tool = round.tools[row.index]!
          kind = 'tool'
          bad = tool.error !== undefined
          name = tool.name
          what = tool.arguments
          time = tool.end === undefined ? undefined : tool.end - tool.start
          bar = (
            <span
              className={`bar tool${bad ? ' bad' : ''}`}
              style={{ left: x(tool.start), width: width(tool.start, tool.end) }}
            />
          )
        } else if (row.kind === 'validation') {
          const attempt = round.validations[row.index]!
          kind = 'validation'
          bad = !attempt.valid
          name = `validation ${attempt.attempt}`
          what = attempt.valid ? 'valid' : attempt.errors.join('; ')
          time = attempt.durationMs
          const start = attempt.t - (attempt.durationMs ?? 0)
          bar = (
            <span
              className={`bar validation${bad ? ' bad' : ''}`}
              style={{ left: x(start), width: width(start, attempt.t) }}
            />
          )
        } else {
          const retry = round.retries[row.index]!
          kind = 'retry'
          name = `retry ${retry.attempt}`
          what = `${retry.error.message} (waits ${duration(retry.delayMs)})`
          bar = <span className="bar retry" style={{ left: x(retry.t) }} />
        }
        return (
          <button
            type="button"
            className={`row ${row.kind === 'round' ? 'round' : 'child'}`}
            aria-current={isSelected(selection, target)}
            aria-label={`${name}${what ? `: ${what}` : ''}${time !== undefined ? `, ${duration(time)}` : ''}${bad ? ', failed' : ''}`}
            data-testid={`timeline-${row.kind}`}
            onClick={() => store.select(target)}
          >
            <span className="names">
              {kind && <span className={`kind ${bad ? 'bad' : kind}`}>{kind.toUpperCase()}</span>}
              <span>{name}</span>
              <span className="what">{what}</span>
              <span className="dur">{duration(time)}</span>
            </span>
            <span className="lane">{bar}</span>
          </button>
        )
      }}
    />
  )
}
