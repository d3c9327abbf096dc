import type { Message, ToolDefinition, TraceEvent, RoundView, RunView, ToolSpan } from 'advisor-chain/trace'
import { costOfRound } from 'advisor-chain/trace'
import { memo, useState, type ReactNode } from 'react'
import { roundFigures } from '../figures'
import { costText, usd } from '../costs'
import { diffPrompts, promptOf } from '../prompt'
import type { DevtoolsStore, Selection } from '../store'
import { duration, formatCount, plural, prettyJson, tokens } from './format'
import { Messages, StreamingAnswer, ToolCallView } from './Messages'
import { Tabs } from './Tabs'
import type { ForkRunner } from '../fork'
import { ForkEditor } from './ForkEditor'
import { RetrievedDocuments } from './RetrievedDocuments'

type Tab = 'prompt' | 'diff' | 'response' | 'tools' | 'timing' | 'raw' | 'fork'

/** Raw JSON of more events than this is cut (a long stream has thousands of chunks). */
const RAW_LIMIT = 300

interface InspectorProps {
  store: DevtoolsStore
  run: RunView
  selection: Selection | undefined
  fork?: ForkRunner | undefined
  /** Changes when what the inspector shows may have (a new event in the round it shows). */
  change: string
}

/** What was sent and received in the selected round or span: chat, diff, tool catalogue, timing, raw JSON. */
export const Inspector = memo(function Inspector({ store, run, selection, fork }: InspectorProps) {
  const [tab, setTab] = useState<Tab>('prompt')
  const round = run.rounds.find((candidate) => candidate.round === selection?.round) ?? run.rounds.at(-1)
  if (!round) return <p className="empty">Select a round in the timeline.</p>
  const span = selection?.round === round.round ? selection.span : undefined
  const within = selection?.within
  const back = () => store.select({ runId: run.id, round: round.round, ...(within ? { within } : {}) })
  if (span?.kind === 'tool') {
    const tool = round.tools.find((candidate) => candidate.id === span.id)
    if (tool) return <ToolDetail run={run} round={round} tool={tool} onBack={back} />
  }
  if (span?.kind === 'validation') {
    const attempt = round.validations.find((candidate) => candidate.attempt === span.attempt)
    if (attempt)
      return (
        <SpanDetail
          round={round}
          title={`Validation attempt ${attempt.attempt}: ${attempt.valid ? 'valid' : 'invalid'}`}
          onBack={back}
          events={[attempt]}
        >
          <dl className="kv">
            <dt>Result</dt>
            <dd className={attempt.valid ? 'ok-text' : 'bad-text'}>{attempt.valid ? 'valid' : 'invalid'}</dd>
            <dt>Took</dt>
            <dd>{duration(attempt.durationMs)}</dd>
          </dl>
          {attempt.errors.length > 0 && (
            <>
              <div className="caption">Errors</div>
              <ul className="errors">
                {attempt.errors.map((error) => (
                  <li key={error}>
                    <code>{error}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
          {attempt.retryWith !== undefined && (
            <>
              <div className="caption">Appended to the last user message for the next attempt</div>
              <pre>{attempt.retryWith}</pre>
            </>
          )}
          {attempt.output !== undefined && (
            <>
              <div className="caption">The model's answer</div>
              <pre>{prettyJson(attempt.output)}</pre>
            </>
          )}
        </SpanDetail>
      )
  }
  if (span?.kind === 'retry') {
    const retry = round.retries.find((candidate) => candidate.attempt === span.attempt)
    if (retry)
      return (
        <SpanDetail round={round} title={`Retry ${retry.attempt}`} onBack={back} events={[retry]}>
          <dl className="kv">
            <dt>After</dt>
            <dd className="bad-text">
              {retry.error.name}: {retry.error.message}
            </dd>
            <dt>Waited</dt>
            <dd>{duration(retry.delayMs)}</dd>
          </dl>
        </SpanDetail>
      )
  }
  if (span?.kind === 'retrieval') {
    const retrieval = round.retrievals[span.index]
    if (retrieval)
      return (
        <SpanDetail round={round} title="Retrieved documents" onBack={back} events={[retrieval]}>
          <RetrievedDocuments retrieval={retrieval} />
        </SpanDetail>
      )
  }
  const index = run.rounds.indexOf(round)
  const previousRound = run.rounds[index - 1]
  const prompt = promptOf(run, round)
  const previous = promptOf(run, previousRound)
  const model = round.model
  const catalogue = model?.request?.options.tools ?? []
  const tabs: Array<[Tab, ReactNode]> = [
    ['prompt', 'Prompt'],
    ['diff', 'Diff'],
    ['response', 'Response'],
    ['tools', `Tools (${catalogue.length})`],
    ['timing', 'Timing'],
    ['raw', 'Raw'],
  ]
  // A round can be re-run once its request is known and the run is over.
  const forkable = fork && prompt && run.status !== 'running'
  if (forkable) tabs.push(['fork', 'Re-run'])
  return (
    <section className="inspector" aria-label={`Round ${round.round} of the run`} data-testid="inspector">
      <div className="inspector-head">
        <strong>Round {round.round}</strong>
        <span className="muted">
          {/* The model is named by the request's options, or else only by the response: while the
              round runs without a `model` option, the provider alone. */}
          {[model?.request?.provider, model?.response?.model ?? model?.request?.options.model]
            .filter(Boolean)
            .join(' · ')}
        </span>
      </div>
      <Tabs label="Round details" tabs={tabs} active={tab} onChange={setTab} panelClassName="inspector-body">
        {tab === 'prompt' &&
          (prompt ? (
            <>
              <p className="muted">
                The exact {plural(prompt.length, 'message')} the model received in round {round.round}, after every
                advisor's changes.
              </p>
              <Messages messages={prompt} />
            </>
          ) : (
            <p className="muted">This round's request was not recorded.</p>
          ))}
        {tab === 'diff' && <Diff round={round} prompt={prompt} previous={previous} previousRound={previousRound} />}
        {tab === 'response' &&
          (model?.response ? (
            <Messages
              messages={[
                {
                  role: 'assistant',
                  text: model.response.text,
                  toolCalls: model.response.toolCalls,
                  ...(model.response.reasoning ? { reasoning: model.response.reasoning } : {}),
                  ...(model.response.parts ? { parts: model.response.parts } : {}),
                },
              ]}
              results={resultsOf(round)}
            />
          ) : model && (model.streamed !== '' || model.streamedReasoning !== '') && round.errors.length === 0 ? (
            <>
              <p className="muted">Streaming: {plural(model.chunks, 'chunk')} so far.</p>
              <StreamingAnswer text={model.streamed} reasoning={model.streamedReasoning} />
            </>
          ) : round.errors.length > 0 ? (
            <pre className="bad-text">
              {round.errors.map((error) => `${error.error.name}: ${error.error.message}`).join('\n')}
            </pre>
          ) : (
            <p className="muted">No response yet.</p>
          ))}
        {tab === 'tools' && <Catalogue tools={catalogue} />}
        {tab === 'timing' && <Timing round={round} />}
        {tab === 'raw' && <Raw events={run.events.filter((event) => event.round === round.round)} />}
        {tab === 'fork' &&
          (forkable ? (
            <ForkEditor key={round.round} store={store} run={run} round={round} prompt={prompt} fork={fork} />
          ) : (
            <p className="muted">This round can be re-run once the run has ended.</p>
          ))}
      </Tabs>
    </section>
  )
})

function resultsOf(round: RoundView): Map<string, { text: string; failed: boolean }> {
  const results = new Map<string, { text: string; failed: boolean }>()
  for (const tool of round.tools)
    if (tool.result !== undefined) results.set(tool.id, { text: tool.result, failed: tool.error !== undefined })
  return results
}

function Diff({
  round,
  prompt,
  previous,
  previousRound,
}: {
  round: RoundView
  prompt: Message[] | undefined
  previous: Message[] | undefined
  previousRound: RoundView | undefined
}) {
  if (!prompt) return <p className="muted">This round's request was not recorded.</p>
  if (!previous || !previousRound)
    return <p className="muted">Round {round.round} is the first round: there is nothing to compare it with.</p>
  const consecutive = previousRound.round === round.round - 1
  const { messages, changes } = diffPrompts(previous, prompt, consecutive ? round.model?.request?.shared : undefined)
  const added = [...changes.values()].filter((change) => change === 'added').length
  const removed = changes.size - added
  return (
    <>
      <p className="muted" data-testid="diff-summary">
        Round {round.round} against round {previousRound.round}: {plural(added, 'message')} added, {removed} removed,{' '}
        {prompt.length - added} unchanged.
      </p>
      <Messages messages={messages} changes={changes} />
    </>
  )
}

function Catalogue({ tools }: { tools: readonly ToolDefinition[] }) {
  if (tools.length === 0) return <p className="muted">No tools were offered to the model in this round.</p>
  return (
    <ul className="catalogue">
      {tools.map((tool) => (
        <li key={tool.name} className="message">
          <div className="message-head">
            <span className="call-name">{tool.name}</span>
          </div>
          <div className="message-text">{tool.description}</div>
          <details>
            <summary>Parameters</summary>
            <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
          </details>
        </li>
      ))}
    </ul>
  )
}

function Timing({ round }: { round: RoundView }) {
  const figures = roundFigures(round)
  const model = round.model
  const usage = figures.usage
  return (
    <dl className="kv">
      <dt>Round</dt>
      <dd>{duration(figures.durationMs)}</dd>
      <dt>Model call</dt>
      <dd>{duration(figures.modelMs)}</dd>
      {round.waits.length > 0 && (
        <>
          <dt>Waiting for approval</dt>
          <dd>{duration(figures.approvalMs)} (your time, not the model's)</dd>
        </>
      )}
      <dt>Tools (wall clock)</dt>
      <dd>
        {round.tools.length === 0 ? '—' : `${duration(figures.toolMs)} for ${plural(round.tools.length, 'call')}`}
      </dd>
      {figures.setupMs > 0 && (
        <>
          <dt>Tool setup</dt>
          <dd>{duration(figures.setupMs)} loading validators, not counted as tool time</dd>
        </>
      )}
      <dt>Time to first token</dt>
      <dd>
        {figures.timeToFirstTokenMs === undefined
          ? 'not measured (not streamed)'
          : duration(figures.timeToFirstTokenMs)}
      </dd>
      <dt>Tokens per second</dt>
      <dd>
        {figures.tokensPerSecond === undefined
          ? 'not measured: needs streamed text and its output tokens'
          : figures.tokensPerSecond.toFixed(1)}
      </dd>
      <dt>Chunks</dt>
      <dd>{model?.chunks ?? 0}</dd>
      {model?.response?.model !== undefined && (
        <>
          <dt>Answered by</dt>
          <dd data-testid="answered-by">
            {model.response.model}
            {round.escalation &&
              ` (left ${round.escalation.from}: ${round.escalation.reason}${round.escalation.detail ? `, ${round.escalation.detail}` : ''})`}
          </dd>
        </>
      )}
      <RoundCost round={round} />
      <dt>Tokens</dt>
      <dd>{usage ? `${tokens(usage)} (${formatCount(usage.totalTokens)} total)` : 'not reported by this model'}</dd>
      {usage?.cacheReadTokens !== undefined && (
        <>
          <dt>Cache read / write</dt>
          <dd>
            {formatCount(usage.cacheReadTokens)} / {formatCount(usage.cacheWriteTokens ?? 0)}
          </dd>
        </>
      )}
      <dt>Finish reason</dt>
      <dd>{model?.response?.finishReason ?? '—'}</dd>
      {round.tools.map((tool) => (
        <ToolTiming key={tool.id} tool={tool} />
      ))}
    </dl>
  )
}

function ToolTiming({ tool }: { tool: ToolSpan }) {
  return (
    <>
      <dt className="indent">{tool.name}</dt>
      <dd className={tool.error !== undefined ? 'bad-text' : undefined}>
        {duration(tool.end === undefined ? undefined : tool.end - tool.start)}
        {tool.error !== undefined ? ' · failed' : ''}
      </dd>
    </>
  )
}

function Raw({ events }: { events: TraceEvent[] }) {
  const chunks = events.filter((event) => event.type === 'model-chunk').length
  const shown = events.filter((event) => event.type !== 'model-chunk' || chunks <= 20).slice(0, RAW_LIMIT)
  return (
    <>
      <p className="muted">
        {plural(events.length, 'event')} in this round
        {shown.length < events.length
          ? `; ${plural(events.length - shown.length, 'event')} (mostly chunks) not shown`
          : ''}
        . Export the session for all of them.
      </p>
      <pre data-testid="raw-json">{JSON.stringify(shown, null, 2)}</pre>
    </>
  )
}

function SpanDetail({
  round,
  title,
  onBack,
  events,
  children,
}: {
  round: RoundView
  title: ReactNode
  onBack: () => void
  events: TraceEvent[]
  children: ReactNode
}) {
  return (
    <section className="inspector" aria-label={typeof title === 'string' ? title : 'Span'} data-testid="inspector">
      <div className="inspector-head">
        <button type="button" className="link" onClick={onBack}>
          Round {round.round}
        </button>
        <span className="muted" aria-hidden="true">
          ›
        </span>
        <strong>{title}</strong>
      </div>
      <div className="inspector-body">
        {children}
        <details>
          <summary>Raw events</summary>
          <pre data-testid="raw-json">{JSON.stringify(events, null, 2)}</pre>
        </details>
      </div>
    </section>
  )
}

function ToolDetail({
  run,
  round,
  tool,
  onBack,
}: {
  run: RunView
  round: RoundView
  tool: ToolSpan
  onBack: () => void
}) {
  const events = run.events.filter(
    (event) =>
      (event.type === 'tool-start' || event.type === 'tool-end' || event.type === 'approval') &&
      event.round === round.round &&
      event.toolCall.id === tool.id,
  )
  const status = tool.end === undefined ? 'running' : tool.error !== undefined ? 'failed' : 'ok'
  return (
    <SpanDetail round={round} title={`${tool.name}()`} onBack={onBack} events={events}>
      <dl className="kv">
        <dt>Status</dt>
        <dd className={status === 'failed' ? 'bad-text' : status === 'ok' ? 'ok-text' : undefined}>{status}</dd>
        <dt>Took</dt>
        <dd>{duration(tool.end === undefined ? undefined : tool.end - tool.start)}</dd>
        <dt>Call id</dt>
        <dd>{tool.id}</dd>
        <dt>Return direct</dt>
        <dd>{tool.returnDirect ? 'yes: its result is the answer' : 'no'}</dd>
        {tool.source && (
          <>
            <dt>{tool.source.kind === 'mcp' ? 'MCP server' : `From (${tool.source.kind})`}</dt>
            <dd data-testid="tool-source">
              {tool.source.name}
              {tool.source.url !== undefined && <span className="muted"> · {tool.source.url}</span>}
            </dd>
          </>
        )}
      </dl>
      <ToolCallView
        call={tool}
        answer={tool.result === undefined ? undefined : { text: tool.result, failed: tool.error !== undefined }}
      />
      {tool.detail && <CallDetail detail={tool.detail} label={tool.source?.kind === 'mcp' ? 'MCP' : 'Tool'} />}
    </SpanDetail>
  )
}

/** What the tool reported about the call: for an MCP tool, the JSON-RPC request it sent and what came back. */
function CallDetail({ detail, label }: { detail: Record<string, unknown>; label: string }) {
  const parts = Object.entries(detail).filter(([key]) => key !== 'server')
  return (
    <div className="call-grid" data-testid="tool-detail">
      {parts.map(([key, value]) => (
        <div key={key}>
          <div className="caption">
            {label} {key}
          </div>
          <pre data-testid={`tool-detail-${key}`}>{JSON.stringify(value, null, 2)}</pre>
        </div>
      ))}
    </div>
  )
}

/** What the round's model response cost, when the observer had a price for its model. */
function RoundCost({ round }: { round: RoundView }) {
  const cost = costOfRound(round)
  const text = costText(cost)
  if (text === undefined && cost.fallbackUsd === undefined) return null
  return (
    <>
      <dt>Cost</dt>
      <dd data-testid="round-cost">
        {text ?? 'no price for this model'}
        {cost.fallbackUsd !== undefined && ` (at the fallback's price: ${usd(cost.fallbackUsd)})`}
      </dd>
    </>
  )
}
