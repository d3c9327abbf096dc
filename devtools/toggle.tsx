import { useLayoutEffect } from 'react'
import { reserveDockRoom } from './dock'
import { useDevtools } from './panel/use-devtools'
import { ShadowRoot } from './shadow-root'
import type { DevtoolsStore } from './store'

/**
 * The room the closed toggle takes at the bottom right of the page, for the page's layout: the same
 * `--advisor-devtools-bottom` the open panel sets (the toggle's 16 px margin, its height and a gap).
 */
const TOGGLE_ROOM = 60

const toggleStyles = `
:host { all: initial; }
.mount { all: initial; display: contents; }
.floating-toggle { all: initial; box-sizing: border-box; position: fixed; z-index: 2147483000; right: 16px; bottom: 16px; height: 36px; display: flex; align-items: center; gap: 7px; padding: 7px 12px 7px 10px; border-radius: 20px; background: #171a21; color: #f3f4f8; font: 600 12.5px/1.2 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; box-shadow: 0 6px 20px rgba(0,0,0,.28); cursor: pointer; }
.floating-toggle:hover { background: #262a35; }
.floating-toggle:focus-visible { outline: 2px solid #8d98ff; outline-offset: 2px; }
.logo { width: 18px; height: 18px; flex: none; fill: none; stroke: #8d98ff; stroke-width: 3; }
.toggle-count { min-width: 18px; padding: 1px 5px; border-radius: 9px; background: #3a3f4d; font-size: 11px; text-align: center; }
.toggle-count.running { background: #4656e0; }
.toggle-count.bad { background: #cf2f2b; }
`

/**
 * The closed devtools: a small button at the bottom right that says how many runs there are, and
 * whether one is running or failed. It is all that loads until the panel is first opened, and it
 * tells the page the room it takes (`--advisor-devtools-bottom`), as the open panel does.
 */
export function ClosedToggle({ store, onOpen }: { store: DevtoolsStore; onOpen: () => void }) {
  useDevtools(store, (state) => state.version)
  // Before paint, as the open panel's room: opening or closing never shows a frame without room.
  useLayoutEffect(() => reserveDockRoom('bottom', TOGGLE_ROOM), [])
  const runs = store.runs()
  const running = runs.some((run) => run.status === 'running')
  const problems = runs.filter((run) => run.hasProblem).length
  const count = runs.length === 1 ? '1 run' : `${runs.length} runs`
  return (
    <ShadowRoot styles={toggleStyles}>
      <button
        type="button"
        className="floating-toggle"
        aria-label="Open advisor-chain devtools"
        title={`${count}${running ? ', one running' : ''}${problems ? `, ${problems} with problems` : ''}`}
        aria-expanded="false"
        data-testid="devtools-toggle"
        onClick={onOpen}
      >
        <svg viewBox="0 0 32 32" aria-hidden="true" className="logo">
          <rect x="3" y="9" width="14" height="14" rx="7" />
          <rect x="15" y="9" width="14" height="14" rx="7" />
        </svg>
        devtools
        {runs.length > 0 && (
          <span className={`toggle-count${running ? ' running' : problems ? ' bad' : ''}`}>{runs.length}</span>
        )}
      </button>
    </ShadowRoot>
  )
}
