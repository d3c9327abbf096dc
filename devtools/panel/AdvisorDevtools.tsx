import { useEffect, useLayoutEffect, useState, type KeyboardEvent, type PointerEvent } from 'react'
import { PanelFrame, type DevtoolsPanelProps } from './DevtoolsPanel'
import { clampSize, defaultSize, MIN_SIZE, reserveDockRoom, RIGHT_DOCK_MIN_WIDTH, room, type Dock } from '../dock'
import { preferences, savePreferences } from '../preferences'
import { ShadowRoot } from '../shadow-root'
import { ClosedToggle } from '../toggle'
import { styles } from './styles'

export interface AdvisorDevtoolsProps extends Omit<DevtoolsPanelProps, 'controls'> {
  /** Open on first load (afterwards the user's choice is remembered). */
  initialIsOpen?: boolean
  /** Where the panel docks at first (afterwards remembered). */
  position?: 'bottom' | 'right'
}

/** The viewport's size, kept current. */
function useViewport(): { width: number; height: number } {
  const [viewport, setViewport] = useState(room)
  useEffect(() => {
    const onResize = () => setViewport(room())
    window.addEventListener('resize', onResize)
    return () => window.removeEventListener('resize', onResize)
  }, [])
  return viewport
}

/**
 * Tells the page how much of the viewport the open panel takes (`reserveDockRoom`), before the
 * browser paints, so the page never shows a frame without that room. Closed, the toggle tells it
 * instead (its effect runs before this one, which must not undo it).
 */
function usePageInsets(open: boolean, dock: Dock, size: number): void {
  useLayoutEffect(() => (open ? reserveDockRoom(dock, size) : undefined), [open, dock, size])
}

/** A floating button that opens the panel docked at the bottom or right of the page. */
export function AdvisorDevtools({ initialIsOpen = false, position = 'bottom', ...panel }: AdvisorDevtoolsProps) {
  const [saved] = useState(preferences)
  const [open, setOpen] = useState(saved.open ?? initialIsOpen)
  const [chosenDock, setDock] = useState<Dock>(saved.dock ?? position)
  const viewport = useViewport()
  const narrow = viewport.width < RIGHT_DOCK_MIN_WIDTH
  const dock: Dock = narrow ? 'bottom' : chosenDock
  const [chosenSize, setSize] = useState(() => saved.size ?? defaultSize(dock))
  // Re-clamped on every render: the viewport may have shrunk since the size was chosen.
  const size = clampSize(chosenSize, dock)
  usePageInsets(open, dock, size)
  const toggle = (next: boolean) => {
    setOpen(next)
    savePreferences({ open: next })
  }
  const resizeTo = (next: number) => {
    const clamped = clampSize(next, dock)
    setSize(clamped)
    savePreferences({ size: clamped })
  }
  const drag = (start: PointerEvent<HTMLDivElement>) => {
    start.preventDefault()
    const target = start.currentTarget
    target.setPointerCapture(start.pointerId)
    const onMove = (move: globalThis.PointerEvent) =>
      setSize(clampSize(dock === 'bottom' ? window.innerHeight - move.clientY : window.innerWidth - move.clientX, dock))
    const onUp = () => {
      target.removeEventListener('pointermove', onMove)
      target.removeEventListener('pointerup', onUp)
      setSize((current) => (savePreferences({ size: current }), current))
    }
    target.addEventListener('pointermove', onMove)
    target.addEventListener('pointerup', onUp)
  }
  const nudge = (event: KeyboardEvent<HTMLDivElement>) => {
    const grow = dock === 'bottom' ? { ArrowUp: 40, ArrowDown: -40 } : { ArrowLeft: 40, ArrowRight: -40 }
    const delta = grow[event.key as keyof typeof grow]
    if (delta === undefined) return
    event.preventDefault()
    resizeTo(size + delta)
  }
  if (!open) return <ClosedToggle store={panel.store} onOpen={() => toggle(true)} />
  return (
    <ShadowRoot styles={styles}>
      <aside
        aria-label="advisor-chain devtools"
        className={`dock ${dock}`}
        style={dock === 'bottom' ? { height: size } : { width: size }}
        data-testid="devtools-dock"
      >
        <div
          className="resize"
          role="separator"
          tabIndex={0}
          aria-orientation={dock === 'bottom' ? 'horizontal' : 'vertical'}
          aria-label="Resize the devtools (arrow keys)"
          aria-valuenow={size}
          aria-valuemin={MIN_SIZE}
          onPointerDown={drag}
          onKeyDown={nudge}
        />
        <PanelFrame
          {...panel}
          landmark={false}
          controls={
            <>
              <button
                type="button"
                className="tool-button icon"
                aria-label={`Dock to the ${dock === 'bottom' ? 'right' : 'bottom'}`}
                title={
                  narrow
                    ? 'The page is too narrow to dock the devtools beside it'
                    : `Dock to the ${dock === 'bottom' ? 'right' : 'bottom'}`
                }
                disabled={narrow}
                onClick={() => {
                  const next: Dock = dock === 'bottom' ? 'right' : 'bottom'
                  const nextSize = clampSize(defaultSize(next), next)
                  setDock(next)
                  setSize(nextSize)
                  savePreferences({ dock: next, size: nextSize })
                }}
              >
                <span aria-hidden="true" className={`dock-icon ${dock === 'bottom' ? 'right' : 'bottom'}`} />
              </button>
              <button
                type="button"
                className="tool-button icon"
                aria-label="Close devtools"
                title="Close"
                onClick={() => toggle(false)}
              >
                <span aria-hidden="true">✕</span>
              </button>
            </>
          }
        />
      </aside>
    </ShadowRoot>
  )
}
