import { reconstructMessages, type Message, type TraceEvent, type TraceEventOf } from 'advisor-chain'
import { useState } from 'react'
import type { Selection } from '../store'
import type { RoundView, RunView } from '../trace-model'
import { duration, prettyJson, tokens } from './format'
import { Messages, diffMessages } from './Messages'

type Tab = 'prompt' | 'diff' | 'response' | 'tools' | 'timing' | 'raw'

function promptOf(run: RunView, round: RoundView | undefined): Message[] | undefined {
  const request = round?.model?.request
  if (!request) return undefined
  try {
    return reconstructMessages(run.events, request)
  } catch {
    return request.messages
  }
}

/** What was sent and received in the selected round or span, as chat, diff, catalogue, timing and raw JSON. */
export function Inspector({ run, selection }: { run: RunView; selection: Selection | undefined }) {
  const [tab, setTab] = useState<Tab>('prompt')
  const round = run.rounds.find((candidate) => candidate.round === selection?.round) ?? run.rounds.at(-1)
  if (!round) return <p className="empty">Select a round in the timeline.</p>
  const span = selection?.round === round.round ? selection.span : undefined
  if (span?.kind === 'tool') {
    const tool = round.tools.find((candidate) => candidate.id === span.id)
    if (tool)
      return (
        <ToolDetail
          tool={tool}
          events={run.events.filter(
            (event) => (event.type === 'tool-start' || event.type === 'tool-end') && event.toolCall.id === tool.id,
          )}
        />
      )
  }
  if (span?.kind === 'validation') {
    const attempt = round.validations.find((candidate) => candidate.attempt === span.attempt)
    if (attempt) return <ValidationDetail attempt={attempt} />
  }
  if (span?.kind === 'retry') {
    const retry = round.retries.find((candidate) => candidate.attempt === span.attempt)
    if (retry) return <Detail title={`Retry ${retry.attempt} after ${retry.error.name}`} event={retry} />
  }
  const prompt = promptOf(run, round)
  const previous = promptOf(run, run.rounds[run.rounds.indexOf(round) - 1])
  const tabs: Array<[Tab, string]> = [
    ['prompt', 'Prompt'],
    ['diff', 'Diff'],
    ['response', 'Response'],
    ['tools', 'Tools'],
    ['timing', 'Usage & timing'],
    ['raw', 'Raw'],
  ]
  const model = round.model
  const raw: TraceEvent[] = run.events.filter((event) => event.round === round.round && event.type !== 'model-chunk')
  return (
    <div className="inspector" aria-label={`Round ${round.round} inspector`}>
      <div role="tablist" aria-label="Inspector">
        {tabs.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id}
            aria-controls="inspector-panel"
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <div
        className="inspector-body"
        role="tabpanel"
        id="inspector-panel"
        aria-labelledby={`tab-${tab}`}
        data-testid="inspector"
      >
        {tab === 'prompt' &&
          (prompt ? <Messages messages={prompt} /> : <p className="muted">This round's request was not recorded.</p>)}
        {tab === 'diff' &&
          (prompt && previous ? (
            <>
              <p className="muted">
                Round {round.round} against round {round.round - 1}: what the loop added to the prompt.
              </p>
              <Messages {...diffMessages(previous, prompt)} />
            </>
          ) : (
            <p className="muted">{prompt ? 'The first round has nothing to compare with.' : 'No request recorded.'}</p>
          ))}
        {tab === 'response' &&
          (model?.response ? (
            <Messages
              messages={[
                { role: 'assistant', text: model.response.text, toolCalls: model.response.toolCalls },
                ...round.tools
                  .filter((tool) => tool.result !== undefined)
                  .map((tool) => ({
                    role: 'tool' as const,
                    responses: [{ id: tool.id, name: tool.name, responseData: tool.result! }],
                  })),
              ]}
            />
          ) : (
            <p className="muted">No response yet.</p>
          ))}
        {tab === 'tools' && <Catalogue tools={model?.request?.options.tools ?? []} />}
        {tab === 'timing' && (
          <dl className="kv">
            <dt>Round</dt>
            <dd>{duration(round.end === undefined ? undefined : round.end - round.start)}</dd>
            <dt>Model call</dt>
            <dd>{duration(model?.end === undefined ? undefined : model.end - model.start)}</dd>
            <dt>Time to first token</dt>
            <dd>{model?.firstToken === undefined ? '—' : duration(model.firstToken - model.start)}</dd>
            <dt>Tokens/s</dt>
            <dd>{model?.response?.tokensPerSecond === undefined ? '—' : model.response.tokensPerSecond.toFixed(1)}</dd>
            <dt>Chunks</dt>
            <dd>{model?.chunks ?? 0}</dd>
            <dt>Tools</dt>
            <dd>
              {round.tools
                .map((tool) => `${tool.name} ${duration(tool.end === undefined ? undefined : tool.end - tool.start)}`)
                .join(', ') || '—'}
            </dd>
            <dt>Usage</dt>
            <dd>{tokens(model?.response?.usage)}</dd>
            <dt>Model</dt>
            <dd>{model?.response?.model ?? model?.request?.options.model ?? '—'}</dd>
            <dt>Finish</dt>
            <dd>{model?.response?.finishReason ?? '—'}</dd>
          </dl>
        )}
        {tab === 'raw' && <pre>{JSON.stringify(raw, null, 2)}</pre>}
      </div>
    </div>
  )
}

function Catalogue({
  tools,
}: {
  tools: ReadonlyArray<{ name: string; description: string; inputSchema: Record<string, unknown> }>
}) {
  if (tools.length === 0) return <p className="muted">No tools were offered in this round.</p>
  return (
    <div>
      {tools.map((tool) => (
        <section key={tool.name} className="message">
          <div className="message-head">{tool.name}</div>
          <div className="message-text">{tool.description}</div>
          <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
        </section>
      ))}
    </div>
  )
}

function ToolDetail({ tool, events }: { tool: RoundView['tools'][number]; events: TraceEvent[] }) {
  return (
    <div className="inspector" aria-label={`Tool ${tool.name}`}>
      <div className="inspector-body" data-testid="inspector">
        <h3 className="call-name">
          {tool.name}() <span className="muted">#{tool.id}</span>
        </h3>
        <dl className="kv">
          <dt>Duration</dt>
          <dd>{duration(tool.end === undefined ? undefined : tool.end - tool.start)}</dd>
          <dt>Return direct</dt>
          <dd>{tool.returnDirect ? 'yes' : 'no'}</dd>
          <dt>Status</dt>
          <dd>{tool.end === undefined ? 'running' : tool.error !== undefined ? 'failed' : 'ok'}</dd>
        </dl>
        <div className="muted">Arguments</div>
        <pre>{prettyJson(tool.arguments)}</pre>
        <div className="muted">{tool.error !== undefined ? 'Error' : 'Result'}</div>
        <pre>{prettyJson(tool.result ?? '…')}</pre>
        <details>
          <summary className="muted">Raw events</summary>
          <pre>{JSON.stringify(events, null, 2)}</pre>
        </details>
      </div>
    </div>
  )
}

/** One validation attempt: the answer, what was wrong with it, and what goes back to the model. */
function ValidationDetail({ attempt }: { attempt: TraceEventOf<'validation'> }) {
  return (
    <div className="inspector" aria-label={`Validation attempt ${attempt.attempt}`}>
      <div className="inspector-body" data-testid="inspector">
        <h3>
          Validation attempt {attempt.attempt}: {attempt.valid ? 'valid' : 'invalid'}
          {attempt.durationMs !== undefined && <span className="muted"> · {duration(attempt.durationMs)}</span>}
        </h3>
        {attempt.errors.length > 0 && (
          <>
            <h4>Errors</h4>
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
            <h4>Appended to the last user message for the next attempt</h4>
            <pre>{attempt.retryWith}</pre>
          </>
        )}
        {attempt.output !== undefined && (
          <>
            <h4>The model's answer</h4>
            <pre>{prettyJson(attempt.output)}</pre>
          </>
        )}
      </div>
    </div>
  )
}

function Detail({ title, event }: { title: string; event: TraceEvent }) {
  return (
    <div className="inspector">
      <div className="inspector-body" data-testid="inspector">
        <h3>{title}</h3>
        <pre>{JSON.stringify(event, null, 2)}</pre>
      </div>
    </div>
  )
}
