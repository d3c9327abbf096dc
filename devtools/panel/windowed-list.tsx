import { useEffect, useRef, useState, type ReactNode } from 'react'

/**
 * Renders only the rows in view (plus a margin) of a long list of fixed-height rows, so ten
 * thousand rows cost as much as forty.
 */
export function WindowedList<T>({
  items,
  rowHeight,
  render,
  className,
  label,
  role,
  header,
}: {
  items: readonly T[]
  rowHeight: number
  render: (item: T, index: number) => ReactNode
  className?: string
  label: string
  role?: string
  header?: ReactNode
}) {
  const scroller = useRef<HTMLDivElement>(null)
  const [view, setView] = useState({ top: 0, height: 600 })
  useEffect(() => {
    const element = scroller.current
    if (!element) return
    const update = () => setView({ top: element.scrollTop, height: element.clientHeight || 600 })
    update()
    element.addEventListener('scroll', update, { passive: true })
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(update) : undefined
    observer?.observe(element)
    return () => {
      element.removeEventListener('scroll', update)
      observer?.disconnect()
    }
  }, [])
  const headerHeight = header ? 22 : 0
  const first = Math.max(0, Math.floor((view.top - headerHeight) / rowHeight) - 10)
  const last = Math.min(items.length, Math.ceil((view.top + view.height) / rowHeight) + 10)
  return (
    <div ref={scroller} className={`scroll ${className ?? ''}`} aria-label={label} role={role} tabIndex={-1}>
      {header}
      <div style={{ height: items.length * rowHeight, position: 'relative' }}>
        {items.slice(first, last).map((item, offset) => (
          <div
            key={first + offset}
            style={{ position: 'absolute', top: (first + offset) * rowHeight, left: 0, right: 0 }}
          >
            {render(item, first + offset)}
          </div>
        ))}
      </div>
    </div>
  )
}
