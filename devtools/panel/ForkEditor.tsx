import type { ForkEdits, Message, RoundView, RunView } from 'advisor-chain/trace'
import { useState } from 'react'
import type { ForkRunner } from '../fork'
import type { DevtoolsStore } from '../store'
import { eventsWithCallers } from '../sub-agents'

type Status = { kind: 'idle' } | { kind: 'running' } | { kind: 'failed'; message: string }

/**
 * "Re-run from here": the round's prompt as the model received it, every text and tool result
 * editable, the request options, and a button that forks the run at this round through the app.
 */
export function ForkEditor({
  store,
  run,
  round,
  prompt,
  fork,
}: {
  store: DevtoolsStore
  run: RunView
  round: RoundView
  prompt: readonly Message[]
  fork: ForkRunner
}) {
  const recorded = round.model?.request?.options
  const [texts, setTexts] = useState<Record<number, string>>({})
  const [results, setResults] = useState<Record<string, string>>({})
  const [model, setModel] = useState('')
  const [temperature, setTemperature] = useState('')
  const [tools, setTools] = useState(recorded?.toolChoice !== 'none')
  const [status, setStatus] = useState<Status>({ kind: 'idle' })
  const edits = (): ForkEdits => {
    const options: NonNullable<ForkEdits['options']> = {}
    if (model.trim()) options.model = model.trim()
    if (temperature.trim()) options.temperature = Number(temperature)
    if (tools !== (recorded?.toolChoice !== 'none')) options.tools = tools
    return {
      messages: Object.entries(texts).map(([index, text]) => ({ index: Number(index), text })),
      toolResults: results,
      options,
    }
  }
  const rerun = () => {
    setStatus({ kind: 'running' })
    fork({ trace: eventsWithCallers(store.runs(), run), runId: run.id, round: round.round, edits: edits() }).then(
      ({ runId }) => {
        setStatus({ kind: 'idle' })
        store.select({ runId, view: 'compare' })
      },
      (error: unknown) =>
        setStatus({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    )
  }
  const changed = Object.keys(texts).length + Object.keys(results).length
  return (
    <form
      className="fork-editor"
      data-testid="fork-editor"
      onSubmit={(event) => {
        event.preventDefault()
        rerun()
      }}
    >
      <p className="muted">
        Change this round's prompt, a tool result or the options, then run the loop again from round {round.round}. The
        rounds before it are taken from this run, not asked of the model again; the new run is a fork of this one.
      </p>
      <ol className="fork-messages">
        {prompt.map((message, index) =>
          message.role === 'tool' ? (
            message.responses.map((response) => (
              <li key={`${index}-${response.id}`} className="message tool">
                <label className="message-head" htmlFor={`fork-result-${response.id}`}>
                  <span className="role">tool</span>
                  <span className="index">#{index + 1}</span>
                  result of <code>{response.name}</code> ({response.id})
                </label>
                <textarea
                  id={`fork-result-${response.id}`}
                  aria-label={`Result of ${response.name} (${response.id})`}
                  value={results[response.id] ?? response.responseData}
                  onChange={(event) => {
                    const value = event.target.value
                    setResults((current) => ({ ...current, [response.id]: value }))
                  }}
                />
              </li>
            ))
          ) : (
            <li key={index} className={`message ${message.role}`}>
              <label className="message-head" htmlFor={`fork-message-${index}`}>
                <span className="role">{message.role}</span>
                <span className="index">#{index + 1}</span>
                {message.role === 'assistant' && message.toolCalls.length > 0 && (
                  <span className="muted">calls {message.toolCalls.map((call) => call.name).join(', ')}</span>
                )}
              </label>
              <textarea
                id={`fork-message-${index}`}
                aria-label={`Message ${index + 1} (${message.role})`}
                value={texts[index] ?? message.text}
                onChange={(event) => {
                  const value = event.target.value
                  setTexts((current) => ({ ...current, [index]: value }))
                }}
              />
            </li>
          ),
        )}
      </ol>
      <fieldset className="fork-options">
        <legend>Options</legend>
        <label>
          Model
          <input
            value={model}
            placeholder={recorded?.model ?? 'as recorded'}
            onChange={(event) => setModel(event.target.value)}
          />
        </label>
        <label>
          Temperature
          <input
            type="number"
            min="0"
            step="0.1"
            value={temperature}
            placeholder={recorded?.temperature === undefined ? 'as recorded' : String(recorded.temperature)}
            onChange={(event) => setTemperature(event.target.value)}
          />
        </label>
        <label className="check">
          <input type="checkbox" checked={tools} onChange={(event) => setTools(event.target.checked)} />
          Tools on
        </label>
      </fieldset>
      <div className="fork-actions">
        <button type="submit" className="primary" disabled={status.kind === 'running'}>
          {status.kind === 'running' ? 'Re-running…' : 'Re-run from here'}
        </button>
        <span className="muted">{changed === 0 ? 'nothing edited yet' : `${changed} edited`}</span>
        {status.kind === 'failed' && (
          <span className="bad-text" role="alert" data-testid="fork-error">
            {status.message}
          </span>
        )}
      </div>
    </form>
  )
}
