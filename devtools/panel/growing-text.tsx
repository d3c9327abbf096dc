import { useLayoutEffect, useRef } from 'react'

/**
 * Text that grows at its end, as a streaming answer does. Each render appends only what is new to
 * one text node, instead of setting the whole text again (thousands of characters on every frame
 * of a fast stream); text that changed otherwise is set whole.
 */
export function GrowingText({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  const element = useRef<HTMLDivElement>(null)
  const shown = useRef('')
  useLayoutEffect(() => {
    const node = element.current
    if (!node) return
    const before = shown.current
    const last = node.lastChild
    if (before !== '' && last instanceof Text && node.childNodes.length === 1 && text.startsWith(before))
      last.appendData(text.slice(before.length))
    else node.textContent = text
    shown.current = text
  }, [text])
  return <div ref={element} className={className} data-testid={testId} />
}
