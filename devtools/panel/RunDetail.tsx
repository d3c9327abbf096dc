import { memo, useEffect, useRef, useState } from 'react'
import { RUN_STATE_WORDS, runFigures, runState, usageText } from '../figures'
import { compactionsOf } from '../compactions'
import { subAgentFigures } from '../sub-agents'
import { costText, runCosts, usd } from '../costs'
import type { DevtoolsStore } from '../store'
import type { RunView } from 'advisor-chain/trace'
import type { ForkRunner } from '../fork'
import { ChainView, chainWarnings } from './ChainView'
import { Compare } from './Compare'
import { ErrorBoundary } from './ErrorBoundary'
import { clock, duration, formatCount, plural, shortId } from './format'
import { Inspector } from './Inspector'
import { followInspector, type InspectorFollow } from './inspector-change'
import { Tabs } from './Tabs'
import { useDevtools } from './use-devtools'
import { useVersion } from './use-version'
import { useNow } from './use-now'
import { Waterfall } from './Waterfall'

type View = 'timeline' | 'chain' | 'compare'

/** One run: its figures, the timeline with the inspector, and the chain. */
export const RunDetail = memo(function RunDetail({
  store,
  run,
  fork,
}: {
  store: DevtoolsStore
  run: RunView
  fork?: ForkRunner | undefined
}) {
  useVersion(store)
  const selection = useDevtools(store, (state) => state.selection)
  const restored = useDevtools(store, (state) => state.kept?.restored.has(run.id))
  const [chosenView, setView] = useState<View>('timeline')
  const asked = selection?.runId === run.id ? selection.view : undefined
  useEffect(() => {
    if (asked) setView(asked)
  }, [asked])
  // Compare is a view of forks only; another run shows its timeline instead.
  const view = chosenView === 'compare' && !run.forkOf ? 'timeline' : chosenView
  const warnings = chainWarnings(run)
  const figures = runFigures(run)
  const live = run.live && run.status === 'running'
  const now = useNow(store, live)
  const state = runState(run)
  const selected = selection?.runId === run.id || selection?.within === run.id ? selection : undefined
  // A sub-agent's round picked in this run's timeline is inspected as a round of the sub-agent's run.
  const inspected = (selected?.within === run.id && store.run(selected.runId)) || run
  const agents = subAgentFigures(store.runs(), run)
  const followed = useRef<InspectorFollow>(undefined)
  followed.current = followInspector(followed.current, inspected, selected, now)
  return (
    <section className="detail" aria-label="Run">
      <header className="detail-head">
        <div className="detail-title">
          <span className={`badge ${state}`}>{RUN_STATE_WORDS[state]}</span>
          <h2 title={run.label}>{run.label || `Run ${shortId(run.id)}`}</h2>
        </div>
        <div className="stats">
          <Stat
            label={live ? 'so far' : 'duration'}
            value={duration(live ? Math.max(now, run.lastT) - run.start : figures.durationMs)}
          />
          <Stat label={figures.rounds === 1 ? 'round' : 'rounds'} value={String(figures.rounds)} />
          {figures.usage ? (
            <Stat label="tokens in → out" value={usageText(run)} />
          ) : (
            <span className="stat muted" data-testid="usage-missing">
              tokens: {usageText(run)}
            </span>
          )}
          <Stat
            label={figures.toolCalls === 1 ? 'tool call' : 'tool calls'}
            value={String(figures.toolCalls)}
            note={figures.toolErrors ? `${figures.toolErrors} failed` : undefined}
          />
          {agents.runs > 0 && (
            <span className="stat" data-testid="sub-agent-figures">
              <b>{plural(agents.runs, 'sub-agent run')}</b> inside: model {duration(agents.modelMs)}
              {agents.usage
                ? `, ${formatCount(agents.usage.promptTokens)} → ${formatCount(agents.usage.completionTokens)} tokens`
                : ''}
              , {plural(agents.toolCalls, 'tool call')}
            </span>
          )}
          <RunCost runs={store.runs()} run={run} />
          {run.parent && (
            <button
              type="button"
              className="stat link"
              onClick={() => store.select({ runId: run.parent!.runId })}
              title="Show the run that called this sub-agent"
            >
              sub-agent of #{shortId(run.parent.runId)}
            </button>
          )}
          {run.finishReason && <Stat label="finish" value={run.finishReason} />}
          {run.evaluations.length > 0 && (
            <Stat label="score" value={run.evaluations.map((evaluation) => evaluation.score.toFixed(2)).join(' → ')} />
          )}
          <span className="stat muted">
            {clock(run.startedAt)} · {run.mode} · run {run.id}
            {run.live ? '' : restored ? ' · from a previous page load' : ' · from a file'}
          </span>
        </div>
        {compactionsOf(run).map((compaction, index) => (
          <div key={index} className="run-notes" data-testid="compaction">
            <span className="warn-text">COMPACTED</span>
            <span>
              {plural(compaction.covered, 'event')} left the view · {compaction.strategy} ({compaction.trigger}) ·{' '}
              {compaction.tokens
                ? `~${compaction.tokens[0]} → ${compaction.tokens[1]} tokens`
                : `~${compaction.tokensSaved} tokens saved`}
            </span>
            {compaction.summary && <span className="muted">summary: {compaction.summary}</span>}
            {compaction.left.length > 0 && (
              <details data-testid="compaction-left">
                <summary>what left the view</summary>
                <ul>
                  {compaction.left.map((excerpt, at) => (
                    <li key={at}>{excerpt}</li>
                  ))}
                </ul>
              </details>
            )}
          </div>
        ))}
        {(run.error || run.retries.length > 0) && (
          <div className="run-notes">
            {run.error && (
              <span className="bad-text" role="status">
                {run.error.name}: {run.error.message}
              </span>
            )}
            {run.retries.length > 0 && (
              <span className="warn-text">{plural(run.retries.length, 'retry')} of the whole call</span>
            )}
          </div>
        )}
      </header>
      <Tabs
        label="Run views"
        className="view-tabs"
        panelClassName="view-panel"
        active={view}
        onChange={setView}
        tabs={[
          ['timeline', 'Timeline'],
          [
            'chain',
            <>
              Chain
              {warnings.length > 0 && (
                <span className="count warn" aria-label={`, ${plural(warnings.length, 'warning')}`}>
                  {warnings.length}
                </span>
              )}
            </>,
          ],
          ...(run.forkOf ? [['compare', 'Compare with original'] as const] : []),
        ]}
      >
        {view === 'timeline' ? (
          <div className="split">
            <ErrorBoundary area="timeline">
              <Waterfall store={store} run={run} clock={now} />
            </ErrorBoundary>
            <ErrorBoundary area="inspector" resetKey={JSON.stringify(selected ?? run.id)}>
              <Inspector
                key={inspected.id}
                store={store}
                run={inspected}
                selection={selected}
                fork={fork}
                change={followed.current.change}
              />
            </ErrorBoundary>
          </div>
        ) : view === 'compare' ? (
          <ErrorBoundary area="compare view">
            <Compare store={store} fork={run} />
          </ErrorBoundary>
        ) : (
          <ErrorBoundary area="chain view">
            <ChainView run={run} />
          </ErrorBoundary>
        )}
      </Tabs>
    </section>
  )
})

function Stat({ label, value, note }: { label: string; value: string; note?: string | undefined }) {
  return (
    <span className="stat">
      <b>{value}</b> {label}
      {note && <span className="bad-text"> · {note}</span>}
    </span>
  )
}

/** The run's cost, its sub-agents' and the session's, and what the device saved at the fallback's price. */
function RunCost({ runs, run }: { runs: readonly RunView[]; run: RunView }) {
  const costs = runCosts(runs, run)
  const own = costText(costs.run)
  if (own === undefined && costs.session.usd === undefined) return null
  const agents = costText(costs.subAgents)
  const session = costText(costs.session)
  return (
    <span className="stat" data-testid="run-cost">
      <b>{own ?? 'no price'}</b> cost
      {agents && `, sub-agents ${agents}`}
      {costs.run.fallbackUsd !== undefined &&
        `; answered on the device: ${usd(costs.run.fallbackUsd)} at the fallback's price`}
      {session && ` · session ${session}`}
    </span>
  )
}
