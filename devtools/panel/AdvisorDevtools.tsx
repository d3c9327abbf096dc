import { useState, type PointerEvent } from 'react'
import { PanelFrame, type DevtoolsPanelProps } from './DevtoolsPanel'
import { ShadowRoot } from './shadow-root'
import { preferences, savePreferences } from './preferences'

export interface AdvisorDevtoolsProps extends Omit<DevtoolsPanelProps, 'controls'> {
  /** Open on first load (afterwards the user's choice is remembered). */
  initialIsOpen?: boolean
  /** Where the panel docks at first (afterwards remembered). */
  position?: 'bottom' | 'right'
}

/** A floating button that opens the panel docked at the bottom or right of the page. */
export function AdvisorDevtools({ initialIsOpen = false, position = 'bottom', ...panel }: AdvisorDevtoolsProps) {
  const saved = preferences()
  const [open, setOpen] = useState(saved.open ?? initialIsOpen)
  const [dock, setDock] = useState<'bottom' | 'right'>(saved.dock ?? position)
  const [size, setSize] = useState(saved.size ?? (dock === 'bottom' ? 380 : 560))
  const toggle = (next: boolean) => {
    setOpen(next)
    savePreferences({ open: next })
  }
  const resize = (start: PointerEvent<HTMLDivElement>) => {
    start.preventDefault()
    const target = start.currentTarget
    target.setPointerCapture(start.pointerId)
    const onMove = (move: globalThis.PointerEvent) => {
      const next = dock === 'bottom' ? window.innerHeight - move.clientY : window.innerWidth - move.clientX
      setSize(Math.max(160, Math.min(next, (dock === 'bottom' ? window.innerHeight : window.innerWidth) - 40)))
    }
    const onUp = () => {
      target.removeEventListener('pointermove', onMove)
      target.removeEventListener('pointerup', onUp)
      setSize((current) => (savePreferences({ size: current }), current))
    }
    target.addEventListener('pointermove', onMove)
    target.addEventListener('pointerup', onUp)
  }
  return (
    <ShadowRoot>
      {open ? (
        <div
          className={`dock ${dock}`}
          style={dock === 'bottom' ? { height: size } : { width: size }}
          data-testid="devtools-dock"
        >
          <PanelFrame
            {...panel}
            controls={
              <>
                <button
                  type="button"
                  className="tool-button"
                  aria-label={`Dock to the ${dock === 'bottom' ? 'right' : 'bottom'}`}
                  onClick={() => {
                    const next = dock === 'bottom' ? 'right' : 'bottom'
                    const nextSize = next === 'bottom' ? 380 : 560
                    setDock(next)
                    setSize(nextSize)
                    savePreferences({ dock: next, size: nextSize })
                  }}
                >
                  {dock === 'bottom' ? 'Dock right' : 'Dock bottom'}
                </button>
                <button
                  type="button"
                  className="tool-button"
                  aria-label="Close devtools"
                  aria-expanded="true"
                  onClick={() => toggle(false)}
                >
                  ×
                </button>
              </>
            }
          />
          <div
            className="resize"
            role="separator"
            aria-orientation={dock === 'bottom' ? 'horizontal' : 'vertical'}
            aria-label="Resize devtools"
            onPointerDown={resize}
          />
        </div>
      ) : (
        <button
          type="button"
          className="floating-toggle"
          aria-label="Open advisor-chain devtools"
          aria-expanded="false"
          onClick={() => toggle(true)}
        >
          advisor-chain devtools
        </button>
      )}
    </ShadowRoot>
  )
}
