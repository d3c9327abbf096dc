import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react'

/**
 * A tab list with its panel, as the ARIA pattern has it: one tab stop, arrow keys and Home/End
 * move between tabs and select them.
 */
export function Tabs<T extends string>({
  label,
  tabs,
  active,
  onChange,
  className,
  panelClassName,
  children,
}: {
  label: string
  tabs: ReadonlyArray<readonly [T, ReactNode]>
  active: T
  onChange: (tab: T) => void
  className?: string
  panelClassName?: string
  children: ReactNode
}) {
  const id = useId()
  const list = useRef<HTMLDivElement>(null)
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = tabs.findIndex(([tab]) => tab === active)
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key]
    if (next === undefined) return
    event.preventDefault()
    const tab = tabs[(next + tabs.length) % tabs.length]![0]
    onChange(tab)
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>(`[data-tab="${tab}"]`)?.focus())
  }
  return (
    <>
      <div role="tablist" aria-label={label} className={className} ref={list} onKeyDown={onKeyDown}>
        {tabs.map(([tab, text]) => (
          <button
            key={tab}
            type="button"
            role="tab"
            id={`${id}-${tab}`}
            data-tab={tab}
            aria-selected={tab === active}
            aria-controls={`${id}-panel`}
            tabIndex={tab === active ? 0 : -1}
            onClick={() => onChange(tab)}
          >
            {text}
          </button>
        ))}
      </div>
      {/* Focusable: it scrolls, and a keyboard must reach all of it. */}
      <div
        role="tabpanel"
        id={`${id}-panel`}
        aria-labelledby={`${id}-${active}`}
        className={panelClassName}
        tabIndex={0}
      >
        {children}
      </div>
    </>
  )
}
