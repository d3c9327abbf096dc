import { useLayoutEffect, useState, type RefObject } from 'react'

/**
 * The width of an element, kept up to date as it resizes. Read from the resize observer's entries
 * (its first comes after the element's first layout), never from the element: reading its size
 * while the panel renders would make the browser lay the page out again in the middle of an update.
 */
export function useWidth(ref: RefObject<HTMLElement | null>, fallback: number): number {
  const [width, setWidth] = useState(fallback)
  useLayoutEffect(() => {
    const element = ref.current
    if (!element || typeof ResizeObserver !== 'function') return
    const observer = new ResizeObserver((entries) => setWidth(entries.at(-1)?.contentRect.width || fallback))
    observer.observe(element)
    return () => observer.disconnect()
  }, [ref, fallback])
  return width
}
