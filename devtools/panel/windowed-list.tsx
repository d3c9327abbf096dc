import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'

export interface RowProps {
  /** The row's focusable element takes this tab index (one row of the list is in the tab order). */
  tabIndex: 0 | -1
  /** Put on the row's focusable element, so arrow keys can move the focus to it. */
  'data-row-focus': true
  /** Where the row sits in the whole list (only some rows are in the DOM), when the row element is the item. */
  'aria-setsize'?: number
  'aria-posinset'?: number
}

/** Whether a row is given the same place in the list and the tab order (a memoized row need not render again). */
export function sameRowProps(before: RowProps, after: RowProps): boolean {
  return (
    before.tabIndex === after.tabIndex &&
    before['aria-setsize'] === after['aria-setsize'] &&
    before['aria-posinset'] === after['aria-posinset']
  )
}

const OVERSCAN = 8
const KEYS = new Set(['ArrowDown', 'ArrowUp', 'Home', 'End', 'PageDown', 'PageUp'])

/**
 * Renders only the rows in view (plus a margin) of a long list of fixed-height rows, so ten
 * thousand rows cost as much as forty. Arrow keys, Home/End and PageUp/PageDown move the focus
 * from row to row (one tab stop for the whole list).
 */
export function WindowedList<T>({
  items,
  rowHeight,
  render,
  rowKey,
  label,
  className,
  role = 'list',
  itemRole = 'listitem',
  activeIndex = 0,
  header,
  headerHeight = 0,
  testId,
}: {
  items: readonly T[]
  rowHeight: number
  render: (item: T, index: number, props: RowProps) => ReactNode
  rowKey: (item: T, index: number) => string
  label: string
  className?: string
  role?: string
  itemRole?: string
  /** The selected row: where the focus enters the list. */
  activeIndex?: number
  header?: ReactNode
  headerHeight?: number
  testId?: string
}) {
  const scroller = useRef<HTMLDivElement>(null)
  const [view, setView] = useState({ top: 0, height: 600 })
  const [focusIndex, setFocusIndex] = useState<number>()
  const moved = useRef(false)
  useEffect(() => {
    const element = scroller.current
    if (!element) return
    let frame = 0
    const update = () => {
      frame = 0
      setView({ top: element.scrollTop, height: element.clientHeight || 600 })
    }
    const onScroll = () => {
      frame ||= requestAnimationFrame(update)
    }
    // Measured in the next frame, not while the list mounts: a read of its size now would lay the page out mid-update.
    onScroll()
    element.addEventListener('scroll', onScroll, { passive: true })
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(onScroll) : undefined
    observer?.observe(element)
    return () => {
      element.removeEventListener('scroll', onScroll)
      observer?.disconnect()
      cancelAnimationFrame(frame)
    }
  }, [])
  const tabStop = Math.min(focusIndex ?? activeIndex, items.length - 1)
  useLayoutEffect(() => {
    if (!moved.current) return
    moved.current = false
    scroller.current?.querySelector<HTMLElement>(`[data-row-index="${tabStop}"] [data-row-focus]`)?.focus()
  })
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const element = scroller.current
    if (!KEYS.has(event.key) || !element || items.length === 0) return
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-row-index]')
    const from = row ? Number(row.dataset['rowIndex']) : tabStop
    const page = Math.max(1, Math.floor((element.clientHeight - headerHeight) / rowHeight) - 1)
    const to = Math.max(
      0,
      Math.min(
        items.length - 1,
        {
          ArrowDown: from + 1,
          ArrowUp: from - 1,
          Home: 0,
          End: items.length - 1,
          PageDown: from + page,
          PageUp: from - page,
        }[event.key] ?? from,
      ),
    )
    event.preventDefault()
    const top = to * rowHeight
    const visibleHeight = element.clientHeight - headerHeight
    if (top < element.scrollTop) element.scrollTop = top
    else if (top + rowHeight > element.scrollTop + visibleHeight) element.scrollTop = top + rowHeight - visibleHeight
    setView({ top: element.scrollTop, height: element.clientHeight || 600 })
    moved.current = true
    setFocusIndex(to)
  }
  const first = Math.max(0, Math.floor((view.top - headerHeight) / rowHeight) - OVERSCAN)
  const last = Math.min(items.length, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN)
  const rows: ReactNode[] = []
  // With a presentational wrapper the rendered element is the item (an option), so it gets the position.
  const wrapped = itemRole !== 'presentation'
  for (let index = first; index < last; index++) {
    const position = { 'aria-setsize': items.length, 'aria-posinset': index + 1 }
    rows.push(
      <div
        key={rowKey(items[index]!, index)}
        role={itemRole}
        {...(wrapped ? position : {})}
        data-row-index={index}
        className="windowed-row"
        style={{ top: index * rowHeight, height: rowHeight }}
      >
        {render(items[index]!, index, {
          tabIndex: index === tabStop ? 0 : -1,
          'data-row-focus': true,
          ...(wrapped ? {} : position),
        })}
      </div>,
    )
  }
  const tabStopShown = tabStop >= first && tabStop < last
  return (
    <div
      ref={scroller}
      className={`scroll ${className ?? ''}`}
      tabIndex={tabStopShown ? -1 : 0}
      onKeyDown={onKeyDown}
      data-testid={testId}
    >
      {header}
      <div role={role} aria-label={label} className="windowed" style={{ height: items.length * rowHeight }}>
        {rows}
      </div>
    </div>
  )
}
