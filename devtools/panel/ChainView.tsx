import type { Message, TracedAdvisor, RunView } from 'advisor-chain/trace'
import { promptOf } from '../prompt'
import { plural } from './format'

/** Known-bad layouts, in words, with what to do about them. */
export function chainWarnings(run: RunView): string[] {
  const warnings: string[] = []
  if (run.observer === 'outside-loop') {
    warnings.push(
      'The observer sits outside the tool loop: it sees the whole call but not each round. Give it an order above the tool advisor (ObserverAdvisor.DEFAULT_ORDER is HIGHEST_PRECEDENCE + 400).',
    )
  }
  const memoryInside = run.chain.some((advisor) => advisor.placement === 'inside-loop' && /memory/i.test(advisor.name))
  const secondPrompt = memoryInside
    ? promptOf(
        run,
        run.rounds.find((round) => round.round >= 2),
      )
    : undefined
  if (secondPrompt && holdsACallTwice(secondPrompt)) {
    warnings.push(
      'A memory advisor sits inside the loop while the tool advisor keeps its own history: the history is sent twice. Disable the loop history (disableInternalConversationHistory()), or let ChatClient register the tool advisor.',
    )
  }
  return warnings
}

/** A tool call or its result sent twice in one prompt: the history reached the model twice. */
function holdsACallTwice(messages: readonly Message[]): boolean {
  const seen = new Set<string>()
  const once = (key: string) => !seen.has(key) && !!seen.add(key)
  return messages.some((message) =>
    message.role === 'assistant'
      ? (message.toolCalls ?? []).some((call) => !once(`call ${call.id}`))
      : message.role === 'tool' && message.responses.some((response) => !once(`result ${response.id}`)),
  )
}

const HIGHEST = -2147483648
const LOWEST = 2147483647

function orderText(order: number): string {
  if (order === HIGHEST) return 'HIGHEST_PRECEDENCE'
  if (order === LOWEST) return 'LOWEST_PRECEDENCE'
  if (order - HIGHEST < 1_000_000) return `HIGHEST_PRECEDENCE + ${order - HIGHEST}`
  if (LOWEST - order < 1_000_000) return `LOWEST_PRECEDENCE − ${LOWEST - order}`
  return String(order)
}

/** The advisors in order, with the tool loop drawn around the ones that run every round. */
export function ChainView({ run }: { run: RunView }) {
  const warnings = chainWarnings(run)
  const outside = run.chain.filter((advisor) => advisor.placement === 'outside-loop')
  const loop = run.chain.find((advisor) => advisor.placement === 'tool-loop')
  const inside = run.chain.filter((advisor) => advisor.placement === 'inside-loop')
  const recorder = run.events.find((event) => event.type === 'run-start')?.advisor
  const row = (advisor: TracedAdvisor) => (
    <AdvisorRow key={`${advisor.name}|${advisor.order}`} advisor={advisor} records={advisor.name === recorder} />
  )
  return (
    <div className="chain scroll" data-testid="chain-view">
      {warnings.map((warning) => (
        <p key={warning} className="warning" role="note">
          <span aria-hidden="true">⚠ </span>
          {warning}
        </p>
      ))}
      {run.chain.length === 0 ? (
        <p className="muted">The chain of this run was not recorded.</p>
      ) : (
        <ol className="advisors" aria-label="Advisors, outermost first">
          {outside.length > 0 && <li className="chain-caption">Once per call</li>}
          {outside.map(row)}
          {loop ? (
            <li className="loop" aria-label={`Tool loop: ${plural(run.rounds.length, 'round')}`}>
              <ol>
                {row(loop)}
                <li className="loop-caption">
                  ↻ each round runs the advisors below again: chain.copy(this) · {plural(run.rounds.length, 'round')} in
                  this run
                </li>
                {inside.map(row)}
              </ol>
            </li>
          ) : (
            inside.map(row)
          )}
          <li className="advisor model">
            <span className="advisor-name">the model</span>
            <span className="muted">ChatModel.{run.mode}()</span>
          </li>
        </ol>
      )}
    </div>
  )
}

function AdvisorRow({ advisor, records }: { advisor: TracedAdvisor; records: boolean }) {
  const where = { 'outside-loop': 'once per call', 'tool-loop': 'the loop', 'inside-loop': 'every round' }[
    advisor.placement
  ]
  return (
    <li className={`advisor ${advisor.placement}`} data-testid="chain-advisor" data-placement={advisor.placement}>
      <span className="advisor-name">{advisor.name}</span>
      {records && <span className="pill">records this trace</span>}
      <span className="muted">{where}</span>
      <span className="order">{orderText(advisor.order)}</span>
    </li>
  )
}
