import type { ChainLogEntry } from './build-client'
import type { Settings } from './settings'

/** Switches that change the advisor chain; the devtools' Chain view shows the result of each. */
export function AdvisorSettings({
  settings,
  change,
  log,
}: {
  settings: Settings
  change: (change: Partial<Settings>) => void
  log: ChainLogEntry[]
}) {
  return (
    <section className="card" aria-labelledby="advisors-heading">
      <h2 id="advisors-heading">Advisors</h2>
      <p className="hint">
        Each switch changes the chain of the next message. Open the devtools' Chain tab to see where each advisor sits.
      </p>
      <fieldset>
        <legend>Tool loop</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.loopHistory}
            onChange={(event) => change({ loopHistory: event.target.checked })}
          />{' '}
          Internal history (off: each round sends only the system message and the latest message)
        </label>
        <label>
          Max rounds
          <input
            type="number"
            min={1}
            max={50}
            value={settings.maxRounds}
            onChange={(event) => change({ maxRounds: Math.max(1, Number(event.target.value) || 1) })}
          />
        </label>
      </fieldset>
      <fieldset>
        <legend>Observer (feeds the devtools)</legend>
        <Choice
          value={settings.observerInside ? 'inside' : 'outside'}
          options={[
            ['inside', 'Inside the loop: every round'],
            ['outside', 'Outside: once per call'],
          ]}
          onChange={(value) => change({ observerInside: value === 'inside' })}
        />
      </fieldset>
      <fieldset>
        <legend>Memory (IndexedDB)</legend>
        <Choice
          value={settings.memory}
          options={[
            ['outside', 'Outside the loop: user message and answer'],
            ['inside', 'Inside the loop: the whole transcript'],
            ['session', "Session: compacted to fit the model's window"],
            ['off', 'Off'],
          ]}
          onChange={(memory) => change({ memory: memory as Settings['memory'] })}
        />
      </fieldset>
      <fieldset>
        <legend>More advisors</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.retry}
            onChange={(event) => change({ retry: event.target.checked })}
          />{' '}
          Retry Advisor (retries a failed model call)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.approval}
            onChange={(event) => change({ approval: event.target.checked })}
          />{' '}
          Ask before delete_note (Tool Approval Advisor)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.localFirst}
            onChange={(event) => change({ localFirst: event.target.checked })}
          />{' '}
          Local first: a round the chosen model fails goes to the scripted remote model (Escalation Advisor)
        </label>
        <p className="hint">
          Pick an in-browser engine under Model (WebLLM, or llama.cpp with its tiny test model) as the local model. A
          message over its window goes remote (context-full), as does a broken tool call (invalid-output) or an engine
          that stops working here (unavailable); the devtools show why, and what each round cost.
        </p>
        <label>
          Logging Advisor
          <select
            value={settings.logging}
            onChange={(event) => change({ logging: event.target.value as Settings['logging'] })}
          >
            <option value="off">Off</option>
            <option value="outside">Order HP+100: outside the loop (once per call)</option>
            <option value="inside">Order HP+350: inside the loop (every round)</option>
            <option value="model">Order LOWEST−10: next to the model call</option>
          </select>
        </label>
      </fieldset>
      {settings.logging !== 'off' && (
        <ol className="chain-log" aria-label="Logging Advisor">
          {log.slice(-12).map((entry, index) => (
            <li key={index}>
              {entry.phase === 'request'
                ? `→ request passed order ${entry.order} with ${entry.messages} messages`
                : `← response passed order ${entry.order}, finish reason ${entry.finishReason}`}
            </li>
          ))}
          {log.length === 0 && <li className="muted">Send a message to see the Logging Advisor log each pass.</li>}
        </ol>
      )}
    </section>
  )
}

function Choice({
  value,
  options,
  onChange,
}: {
  value: string
  options: Array<[string, string]>
  onChange: (value: string) => void
}) {
  return (
    <>
      {options.map(([option, label]) => (
        <label key={option} className="check">
          <input type="radio" checked={value === option} onChange={() => onChange(option)} /> {label}
        </label>
      ))}
    </>
  )
}
