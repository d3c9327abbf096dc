import {
  memo,
  useCallback,
  useEffect,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
} from 'react'
import { WHOLE_RUN, isWholeRun, liveSpan, pan, zoom, type TimeWindow } from '../zoom'
import { roundFigures } from '../figures'
import type { DevtoolsStore, Selection } from '../store'
import type { RoundView, RunView, TraceEventOf } from 'advisor-chain/trace'
import { subAgentRuns } from '../sub-agents'
import { axisTicks, duration, durationCompact, formatCount, plural } from './format'
import { useDevtools } from './use-devtools'
import { useWidth } from './use-width'
import { WindowedList, sameRowProps, type RowProps } from './windowed-list'

const ROW_HEIGHT = 26
const AXIS_HEIGHT = 24

type RowKind =
  | { kind: 'round'; round: RoundView }
  | { kind: 'model'; round: RoundView }
  | { kind: 'tool'; round: RoundView; index: number }
  | { kind: 'approval'; round: RoundView; index: number }
  | { kind: 'validation'; round: RoundView; index: number }
  | { kind: 'retry'; round: RoundView; index: number }
  | { kind: 'retrieval'; round: RoundView; index: number }
  /** A sub-agent's run under the tool call that started it: one bar, or its rounds when expanded. */
  | { kind: 'agent'; round: RoundView; child: RunView; expanded: boolean }

/** A row, of the run shown or of a sub-agent's run nested `depth` levels under it. */
type Row = RowKind & { run: RunView; depth: number }

function rowsOf(run: RunView, runs: readonly RunView[], expanded: ReadonlySet<string>, depth = 0): Row[] {
  const rows: Row[] = []
  const on = { run, depth }
  for (const round of run.rounds) {
    rows.push({ kind: 'round', round, ...on })
    round.retrievals.forEach((_, index) => rows.push({ kind: 'retrieval', round, index, ...on }))
    if (round.model) rows.push({ kind: 'model', round, ...on })
    round.waits.forEach((_, index) => rows.push({ kind: 'approval', round, index, ...on }))
    round.tools.forEach((tool, index) => {
      rows.push({ kind: 'tool', round, index, ...on })
      // Nesting is bounded by the sub-agents' maxDepth; an imported file's loops by `depth`.
      if (depth > 16) return
      for (const child of subAgentRuns(runs, run, tool.id)) {
        const open = expanded.has(child.id)
        rows.push({ kind: 'agent', round, child, expanded: open, ...on })
        if (open) rows.push(...rowsOf(child, runs, expanded, depth + 1))
      }
    })
    round.validations.forEach((_, index) => rows.push({ kind: 'validation', round, index, ...on }))
    round.retries.forEach((_, index) => rows.push({ kind: 'retry', round, index, ...on }))
  }
  return rows
}

/** What a click on a row selects; a sub-agent's row is selected within the run shown. */
function selectionOf(row: Row, shown: RunView): Selection {
  const selection = selectionInRun(row)
  return row.run === shown ? selection : { ...selection, within: shown.id }
}

function selectionInRun(row: Row): Selection {
  const runId = row.run.id
  const round = row.round.round
  switch (row.kind) {
    case 'round':
    case 'agent':
      return { runId, round }
    case 'model':
      return { runId, round, span: { kind: 'model' } }
    case 'tool':
      return { runId, round, span: { kind: 'tool', id: row.round.tools[row.index]!.id } }
    case 'approval':
      return { runId, round, span: { kind: 'tool', id: row.round.waits[row.index]!.id } }
    case 'validation':
      return { runId, round, span: { kind: 'validation', attempt: row.round.validations[row.index]!.attempt } }
    case 'retry':
      return { runId, round, span: { kind: 'retry', attempt: row.round.retries[row.index]!.attempt } }
    case 'retrieval':
      return { runId, round, span: { kind: 'retrieval', index: row.index } }
  }
}

function sameSelection(a: Selection | undefined, b: Selection): boolean {
  if (!a || a.runId !== b.runId || a.round !== b.round) return false
  return JSON.stringify(a.span ?? null) === JSON.stringify(b.span ?? null)
}

/**
 * The run on a time axis: a row per round (spanning its model call and its tools), with the model
 * call (its streaming part shaded), each tool execution (parallel calls side by side in time),
 * validation attempts and retries nested under it. Live runs grow as time passes.
 */
export function Waterfall({
  store,
  run,
  clock,
}: {
  store: DevtoolsStore
  run: RunView
  /** The time now (`performance.now()`), refreshed while the run runs. */
  clock: number
}) {
  const selection = useDevtools(store, (state) => state.selection)
  const axis = useRef<HTMLDivElement>(null)
  // About one labelled tick per 90 px of lane, so labels never overlap.
  const laneWidth = useWidth(axis, 400)
  const ticking = run.live && run.status === 'running'
  const now = run.end ?? (ticking ? Math.max(run.lastT, clock) : run.lastT)
  // While the run runs, its axis ends at a round value ahead of now: bars keep their places as it grows.
  const span = ticking && run.end === undefined ? liveSpan(now - run.start) : Math.max(now - run.start, 1)
  const [range, setRange] = useState<TimeWindow>(WHOLE_RUN)
  const frame = useRef<HTMLDivElement>(null)
  useZoomByWheel(frame, axis, setRange, run.rounds.length > 0)
  // The visible part of the axis, in ms from the run's start.
  const shownFrom = range.from * span
  const shown = Math.max((range.to - range.from) * span, 1e-3)
  const at = (t: number) => Math.max(0, Math.min(100, ((t - run.start - shownFrom) / shown) * 100))
  const bar = (from: number, to: number | undefined): CSSProperties => {
    const left = at(from)
    return { left: `${left}%`, width: `${Math.max(0, at(to ?? now) - left)}%` }
  }
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set())
  const toggle = useCallback(
    (child: RunView) =>
      setExpanded((open) => {
        const next = new Set(open)
        if (!next.delete(child.id)) next.add(child.id)
        return next
      }),
    [],
  )
  const rows = rowsOf(run, store.runs(), expanded)
  const step = axisTicks(shown, Math.max(1, Math.floor(laneWidth / 90)))[1] ?? shown
  const ticks: number[] = []
  for (let tick = Math.ceil(shownFrom / step - 1e-9) * step; tick <= shownFrom + shown + 1e-9; tick += step)
    ticks.push(tick)
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const change = zoomKeys(event)
    if (!change) return
    event.preventDefault()
    setRange(change)
  }
  const selectedIndex = Math.max(
    0,
    rows.findIndex((row) => row.kind !== 'agent' && sameSelection(selection, selectionOf(row, run))),
  )
  if (rows.length === 0)
    return (
      <p className="empty waterfall-empty">
        {run.observer === 'outside-loop'
          ? 'No rounds recorded: the observer sits outside the tool loop, so it sees the call but not its rounds (see Chain).'
          : 'Waiting for the first round…'}
      </p>
    )
  const header = (
    <div className="axis" aria-hidden="true" style={{ height: AXIS_HEIGHT }}>
      <div className="names">Round · span</div>
      <div className="ticks" ref={axis}>
        {ticks.map((tick) => {
          const left = ((tick - shownFrom) / shown) * 100
          return (
            <span key={tick} className={`tick${left > 92 ? ' end' : ''}`} style={{ left: `${left}%` }}>
              {tick === 0 ? '0' : duration(tick)}
            </span>
          )
        })}
      </div>
    </div>
  )
  return (
    <div
      ref={frame}
      className="waterfall-frame"
      style={
        {
          '--grid': `${(step / shown) * 100}%`,
          '--grid-offset': `${(((ticks[0] ?? 0) - shownFrom) / shown) * laneWidth}px`,
          // How tall the timeline is where it does not fill its column (on a phone).
          '--timeline-rows': rows.length,
        } as CSSProperties
      }
      onKeyDown={onKeyDown}
    >
      <div className="zoom-bar">
        <span className="muted">
          {isWholeRun(range) ? 'Whole run' : `${duration(shownFrom)} – ${duration(shownFrom + shown)}`}
          <span className="zoom-hint"> · Ctrl+wheel or + − to zoom, Shift+wheel or Shift+← → to pan, 0 to fit</span>
        </span>
        <button
          type="button"
          className="tool-button icon"
          aria-label="Zoom out of the timeline"
          title="Zoom out (−)"
          disabled={isWholeRun(range)}
          onClick={() => setRange((current) => zoom(current, 0.5))}
        >
          −
        </button>
        <button
          type="button"
          className="tool-button icon"
          aria-label="Zoom into the timeline"
          title="Zoom in (+)"
          onClick={() => setRange((current) => zoom(current, 2))}
        >
          +
        </button>
        <button
          type="button"
          className="tool-button"
          title="Show the whole run (0)"
          disabled={isWholeRun(range)}
          onClick={() => setRange(WHOLE_RUN)}
        >
          Fit
        </button>
      </div>
      <WindowedList
        className="waterfall"
        items={rows}
        rowHeight={ROW_HEIGHT}
        rowKey={(row) =>
          row.kind === 'agent'
            ? `agent-${row.child.id}`
            : `${row.run.id}-${row.round.round}-${row.kind}-${'index' in row ? row.index : ''}`
        }
        label="Timeline"
        header={header}
        headerHeight={AXIS_HEIGHT}
        activeIndex={selectedIndex}
        testId="timeline"
        render={(row, _index, props) => {
          const target = selectionOf(row, run)
          return (
            <TimelineRow
              row={row}
              target={target}
              current={row.kind !== 'agent' && sameSelection(selection, target)}
              scale={`${run.start} ${shownFrom} ${shown}`}
              change={changeOf(row, now)}
              now={now}
              bar={bar}
              store={store}
              toggle={toggle}
              props={props}
            />
          )
        }}
      />
    </div>
  )
}

/**
 * What a row shows can have changed since it was drawn: in the last round of its run, whenever the
 * run changed or time passed; a sub-agent's bar whenever its run changed. An earlier round is over
 * and only moves with the axis (`scale`).
 */
function changeOf(row: Row, now: number): string {
  if (row.kind === 'agent') return `${row.child.version} ${now}`
  return row.round === row.run.rounds.at(-1) ? `${row.run.version} ${now}` : 'settled'
}

interface TimelineRowProps {
  row: Row
  target: Selection
  current: boolean
  /** The axis: the run's start and the window shown (ms). */
  scale: string
  change: string
  now: number
  bar: (from: number, to: number | undefined) => CSSProperties
  store: DevtoolsStore
  toggle: (child: RunView) => void
  props: RowProps
}

const sameTimelineRow = (before: TimelineRowProps, after: TimelineRowProps) =>
  before.scale === after.scale &&
  before.change === after.change &&
  before.current === after.current &&
  before.store === after.store &&
  before.toggle === after.toggle &&
  sameRowProps(before.props, after.props) &&
  sameRowOf(before.row, after.row)

function sameRowOf(before: Row, after: Row): boolean {
  if (before.kind !== after.kind || before.round !== after.round || before.run !== after.run) return false
  if (before.depth !== after.depth) return false
  if (before.kind === 'agent' && after.kind === 'agent')
    return before.child === after.child && before.expanded === after.expanded
  return ('index' in before ? before.index : -1) === ('index' in after ? after.index : -1)
}

/** One row of the timeline; it renders again only when what it shows may have changed. */
const TimelineRow = memo(function TimelineRow({
  row,
  target,
  current,
  now,
  bar,
  store,
  toggle,
  props,
}: TimelineRowProps) {
  const view = describe(row, now, bar)
  const agent = row.kind === 'agent'
  return (
    <button
      type="button"
      className={`row ${row.kind}${view.bad ? ' bad' : ''}${row.depth > 0 ? ' nested' : ''}`}
      aria-current={current ? 'true' : undefined}
      aria-expanded={agent ? row.expanded : undefined}
      data-testid={`timeline-${row.kind}`}
      data-depth={row.depth}
      onClick={() => (agent ? toggle(row.child) : store.select(target))}
      {...props}
    >
      <span className="names" style={row.depth > 0 ? { paddingLeft: `${row.depth * 14}px` } : undefined}>
        {view.badge}
        {view.name && <span className="name">{view.name}</span>}
        {view.legend ?? <span className="what">{view.detail}</span>}
        {view.bad && <span className="sr-only">, failed</span>}
        <span className="dur">
          {view.time === undefined ? (view.running ? 'running' : view.cutOff ? 'cut off' : '') : duration(view.time)}
        </span>
      </span>
      <span className="lane">
        {view.bar}
        {view.note}
      </span>
    </button>
  )
}, sameTimelineRow)

/** The zoom a key asks for: + and − zoom, 0 fits the whole run, Shift+←/→ pan. */
function zoomKeys(event: KeyboardEvent<HTMLElement>): ((range: TimeWindow) => TimeWindow) | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined
  switch (event.key) {
    case '+':
    case '=':
      return (range) => zoom(range, 2)
    case '-':
      return (range) => zoom(range, 0.5)
    case '0':
      return () => WHOLE_RUN
    case 'ArrowLeft':
      return event.shiftKey ? (range) => pan(range, -0.25) : undefined
    case 'ArrowRight':
      return event.shiftKey ? (range) => pan(range, 0.25) : undefined
  }
  return undefined
}

/**
 * Ctrl/⌘+wheel zooms around the pointer, Shift+wheel (or a sideways wheel) pans; a plain wheel
 * still scrolls the rows. Listened to directly, because React's wheel listener cannot prevent the
 * page from zooming or scrolling.
 */
function useZoomByWheel(
  frame: RefObject<HTMLDivElement | null>,
  lane: RefObject<HTMLDivElement | null>,
  setRange: (change: (range: TimeWindow) => TimeWindow) => void,
  /** The frame is rendered (a run without rounds shows a note instead). */
  shown: boolean,
): void {
  useEffect(() => {
    const element = frame.current
    if (!element) return
    const onWheel = (event: WheelEvent) => {
      const sideways = Math.abs(event.deltaX) > Math.abs(event.deltaY)
      if (event.ctrlKey || event.metaKey) {
        event.preventDefault()
        const box = lane.current?.getBoundingClientRect()
        const anchor = box && box.width > 0 ? (event.clientX - box.left) / box.width : 0.5
        setRange((range) => zoom(range, Math.exp(-event.deltaY * 0.002), anchor))
      } else if (event.shiftKey || sideways) {
        event.preventDefault()
        const delta = sideways ? event.deltaX : event.deltaY
        setRange((range) => pan(range, delta / 500))
      }
    }
    element.addEventListener('wheel', onWheel, { passive: false })
    return () => element.removeEventListener('wheel', onWheel)
  }, [frame, lane, setRange, shown])
}

interface RowView {
  name: string
  detail: string
  /** Shown instead of the detail (which stays in the accessible name). */
  legend?: ReactNode
  time: number | undefined
  running: boolean
  /** Never ended: the run ended first. */
  cutOff?: boolean
  bad: boolean
  badge: ReactNode
  bar: ReactNode
  /** Written over the lane, right-aligned: what the bar cannot say (an escalation). */
  note?: ReactNode
}

function describe(row: Row, now: number, bar: (from: number, to: number | undefined) => CSSProperties): RowView {
  const { round } = row
  switch (row.kind) {
    case 'round': {
      const figures = roundFigures(round)
      const parts = [
        figures.modelMs !== undefined && `model ${duration(figures.modelMs)}`,
        round.waits.length > 0 && `waiting for approval ${duration(figures.approvalMs)}`,
        round.tools.length > 0 && `tools ${duration(figures.toolMs)}`,
        figures.setupMs > 0 && `tool setup ${duration(figures.setupMs)}`,
        round.hasProblem && 'had a problem',
        round.escalation && `answered by ${round.escalation.to} (${round.escalation.reason})`,
      ].filter(Boolean)
      return {
        name: `Round ${round.round}`,
        detail: parts.join(', '),
        legend: (
          <span className="legend">
            {figures.modelMs !== undefined && (
              <span className="model" title="model call">
                {durationCompact(figures.modelMs)}
              </span>
            )}
            {round.waits.length > 0 && (
              <span className="approval" title="waiting for your approval">
                {round.waits.some((wait) => wait.end === undefined) && !round.closed
                  ? 'waiting'
                  : durationCompact(figures.approvalMs)}
              </span>
            )}
            {round.tools.length > 0 && (
              <span className="tool" title="tools, wall clock (setup not counted)">
                {durationCompact(figures.toolMs)}
              </span>
            )}
          </span>
        ),
        ...(round.escalation ? { note: <EscalationBadge escalation={round.escalation} /> } : {}),
        time: figures.durationMs,
        running: figures.status === 'running',
        bad: round.hasProblem,
        badge: <span className={`chevron ${round.hasProblem ? 'bad' : figures.status}`} aria-hidden="true" />,
        bar: <span className={`bar round${round.hasProblem ? ' bad' : ''}`} style={bar(figures.start, figures.end)} />,
      }
    }
    case 'model': {
      const model = round.model!
      const response = model.response
      const end = model.end ?? now
      const total = Math.max(end - model.start, 1e-3)
      const streamed = model.firstToken === undefined ? 0 : Math.min(1, Math.max(0, (end - model.firstToken) / total))
      const failed = model.end === undefined && (round.status === 'error' || round.status === 'aborted')
      const cutOff = model.end === undefined && round.closed && !failed
      return {
        name: '',
        detail: response
          ? response.toolCalls.length
            ? `→ ${response.toolCalls.map((call) => call.name).join(', ')}`
            : response.text.slice(0, 120)
          : failed
            ? (round.errors[0]?.error.message ??
              `the run ${round.status === 'aborted' ? 'was aborted' : 'failed'} before the model answered`)
            : cutOff
              ? 'the run ended before the model answered'
              : model.end !== undefined
                ? 'answered with tool calls; waiting for approval'
                : model.firstToken !== undefined
                  ? `streaming… ${model.streamed.slice(-120)}`
                  : 'waiting for the model…',
        time: model.end === undefined ? undefined : model.end - model.start,
        running: model.end === undefined && !round.closed && !failed,
        cutOff,
        bad: failed,
        badge: <span className={`kind ${failed ? 'bad' : 'model'}`}>MODEL</span>,
        bar: (
          <span
            className={`bar model${model.end === undefined && !round.closed && !failed ? ' live' : ''}${failed ? ' bad' : ''}`}
            style={bar(model.start, model.end ?? (failed || round.closed ? (round.end ?? model.start) : undefined))}
          >
            {streamed > 0 && <span className="streaming" style={{ width: `${streamed * 100}%` }} />}
          </span>
        ),
      }
    }
    case 'tool': {
      const tool = round.tools[row.index]!
      const bad = tool.error !== undefined
      const running = tool.end === undefined && !round.closed
      return {
        name: tool.name,
        detail: tool.setup
          ? `${tool.arguments} · setup ${duration(tool.setup.end - tool.setup.start)} (loading its validator) not counted`
          : tool.arguments,
        time: tool.end === undefined ? undefined : tool.end - tool.start,
        running,
        cutOff: tool.end === undefined && round.closed,
        bad,
        badge: <span className={`kind ${bad ? 'bad' : 'tool'}`}>{bad ? 'ERROR' : 'TOOL'}</span>,
        bar: (
          <>
            {tool.setup && (
              <span
                className="bar setup"
                title="setup: loading the tool's validator"
                style={bar(tool.setup.start, tool.setup.end)}
              />
            )}
            <span
              className={`bar tool${bad ? ' bad' : ''}${running ? ' live' : ''}`}
              style={bar(tool.start, tool.end ?? (round.closed ? tool.start : undefined))}
            />
          </>
        ),
      }
    }
    case 'approval': {
      const wait = round.waits[row.index]!
      const running = wait.end === undefined && !round.closed
      return {
        name: wait.name,
        detail: wait.decision
          ? `approval: ${wait.decision === 'approve' ? 'approved' : wait.decision === 'edit' ? 'edited' : 'rejected'}`
          : 'waiting for your approval',
        time: wait.end === undefined ? undefined : wait.end - wait.start,
        running,
        cutOff: wait.end === undefined && round.closed,
        bad: false,
        badge: <span className="kind approval">WAIT</span>,
        bar: (
          <span
            className={`bar approval${running ? ' live' : ''}`}
            style={bar(wait.start, wait.end ?? (round.closed ? wait.start : undefined))}
          />
        ),
      }
    }
    case 'validation': {
      const attempt = round.validations[row.index]!
      const start = attempt.t - (attempt.durationMs ?? 0)
      return {
        name: `validation ${attempt.attempt}`,
        detail: attempt.valid ? 'valid' : attempt.errors.join('; '),
        time: attempt.durationMs,
        running: false,
        bad: !attempt.valid,
        badge: <span className={`kind ${attempt.valid ? 'validation' : 'bad'}`}>CHECK</span>,
        bar: <span className={`bar validation${attempt.valid ? '' : ' bad'}`} style={bar(start, attempt.t)} />,
      }
    }
    case 'agent': {
      const child = row.child
      const running = child.status === 'running' && child.live
      const spent = [
        plural(child.rounds.length, 'round'),
        child.usage && `${formatCount(child.usage.promptTokens + child.usage.completionTokens)} tokens`,
        child.toolCalls > 0 && plural(child.toolCalls, 'tool call'),
      ].filter(Boolean)
      const bad = child.status === 'error' || child.hasProblem
      return {
        name: 'sub-agent',
        detail: `${row.expanded ? 'hide' : 'show'} its ${spent.join(', ')}${running ? ', running' : ''}`,
        time: child.end === undefined ? undefined : child.end - child.start,
        running,
        cutOff: child.end === undefined && !running,
        bad,
        badge: <span className={`kind agent${bad ? ' bad' : ''}`}>{row.expanded ? '▾' : '▸'} AGENT</span>,
        bar: (
          <span
            className={`bar agent${bad ? ' bad' : ''}${running ? ' live' : ''}`}
            style={bar(child.start, child.end ?? (running ? undefined : child.lastT))}
          />
        ),
      }
    }
    case 'retrieval': {
      const retrieval = round.retrievals[row.index]!
      const best = retrieval.documents[0]
      return {
        name: 'retrieval',
        detail: `${plural(retrieval.documents.length, 'document')}${best ? ` · best ${best.score.toFixed(2)} ${best.id}` : ''}`,
        time: retrieval.durationMs,
        running: false,
        bad: false,
        badge: <span className="kind retrieval">DOCS</span>,
        bar: <span className="bar retrieval" style={bar(retrieval.t - retrieval.durationMs, retrieval.t)} />,
      }
    }
    case 'retry': {
      const retry = round.retries[row.index]!
      return {
        name: `retry ${retry.attempt}`,
        detail: `${retry.error.message} · waits ${duration(retry.delayMs)}`,
        time: undefined,
        running: false,
        bad: false,
        badge: <span className="kind retry">RETRY</span>,
        bar: <span className="bar retry" style={bar(retry.t, retry.t + retry.delayMs)} />,
      }
    }
  }
}

/** Which model answered a round that left the client's model, and why it left. */
function EscalationBadge({ escalation }: { escalation: TraceEventOf<'escalation'> }) {
  return (
    <span
      className="escalation"
      data-testid="escalation-badge"
      title={`${escalation.from} → ${escalation.to}: ${escalation.reason}${escalation.detail ? ` (${escalation.detail})` : ''}`}
    >
      ↑ {escalation.to} · {escalation.reason}
    </span>
  )
}
