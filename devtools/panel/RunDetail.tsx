import { useState } from 'react'
import type { DevtoolsStore } from '../store'
import type { RunView } from '../trace-model'
import { ChainView, chainWarnings } from './ChainView'
import { clock, duration, shortId, tokens } from './format'
import { Inspector } from './Inspector'
import { useDevtools } from './use-devtools'
import { Waterfall } from './Waterfall'

/** One run: its figures, the timeline with the inspector, and the chain. */
export function RunDetail({ store, run }: { store: DevtoolsStore; run: RunView }) {
  useDevtools(store, (state) => state.version)
  const selection = useDevtools(store, (state) => state.selection)
  const [tab, setTab] = useState<'timeline' | 'chain'>('timeline')
  const warnings = chainWarnings(run)
  return (
    <section className="detail" aria-label="Run">
      <header className="detail-head">
        <h2 title={run.label}>{run.label || `Run #${shortId(run.id)}`}</h2>
        <span className={`badge ${run.status}`}>{run.status}</span>
        <span className="stat">
          <b>{run.rounds.length}</b> rounds
        </span>
        <span className="stat">
          <b>{duration(run.end === undefined ? undefined : run.end - run.start)}</b>
        </span>
        <span className="stat">{tokens(run.usage)}</span>
        {run.toolCalls > 0 && (
          <span className="stat">
            <b>{run.toolCalls}</b> tool calls{run.toolErrors ? `, ${run.toolErrors} failed` : ''}
          </span>
        )}
        {run.finishReason && <span className="stat">finish: {run.finishReason}</span>}
        {run.evaluations.length > 0 && (
          <span className="stat">
            score {run.evaluations.map((evaluation) => evaluation.score.toFixed(2)).join(' → ')}
          </span>
        )}
        <span className="stat muted">
          {clock(run.startedAt)} · {run.mode} · #{shortId(run.id)}
        </span>
        {run.error && (
          <span className="stat" style={{ color: 'var(--bad)' }}>
            {run.error.name}: {run.error.message}
          </span>
        )}
      </header>
      <div role="tablist" aria-label="Run views">
        <button type="button" role="tab" aria-selected={tab === 'timeline'} onClick={() => setTab('timeline')}>
          Timeline
        </button>
        <button type="button" role="tab" aria-selected={tab === 'chain'} onClick={() => setTab('chain')}>
          Chain{warnings.length > 0 ? ` ⚠ ${warnings.length}` : ''}
        </button>
      </div>
      {tab === 'timeline' ? (
        <div className="split" role="tabpanel" aria-label="Timeline">
          <Waterfall store={store} run={run} />
          <Inspector key={run.id} run={run} selection={selection?.runId === run.id ? selection : undefined} />
        </div>
      ) : (
        <div role="tabpanel" aria-label="Chain" className="scroll">
          <ChainView run={run} />
        </div>
      )}
    </section>
  )
}
