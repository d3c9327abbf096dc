import { useLayoutEffect, useState, type RefObject } from 'react'

/** The width of an element, kept up to date as it resizes. */
export function useWidth(ref: RefObject<HTMLElement | null>, fallback: number): number {
  const [width, setWidth] = useState(fallback)
  useLayoutEffect(() => {
    const element = ref.current
    if (!element || typeof ResizeObserver !== 'function') return
    const observer = new ResizeObserver(() => setWidth(element.clientWidth || fallback))
    observer.observe(element)
    setWidth(element.clientWidth || fallback)
    return () => observer.disconnect()
  }, [ref, fallback])
  return width
}
