import { useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import { createPortal } from 'react-dom'

// One constructed stylesheet per text of CSS, shared by every root on the page that uses it.
const sheets = new Map<string, CSSStyleSheet>()

function adopt(root: ShadowRoot, styles: string): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    let sheet = sheets.get(styles)
    if (!sheet) {
      sheet = new CSSStyleSheet()
      sheet.replaceSync(styles)
      sheets.set(styles, sheet)
    }
    root.adoptedStyleSheets = [sheet]
  } else if (!root.querySelector('style')) {
    const style = document.createElement('style')
    style.textContent = styles
    root.appendChild(style)
  }
}

/**
 * Renders its children into an open shadow root with the given stylesheet: host page CSS does not
 * reach in (inherited properties are reset at the boundary), and the devtools' CSS does not leak
 * out. `className` is for the host element (`embedded` fills its container).
 */
export function ShadowRoot({
  children,
  className,
  styles,
}: {
  children: ReactNode
  className?: string
  styles: string
}) {
  const host = useRef<HTMLDivElement>(null)
  const [container, setContainer] = useState<HTMLElement | null>(null)
  useLayoutEffect(() => {
    const element = host.current
    if (!element) return
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' })
    adopt(root, styles)
    let mount = root.querySelector<HTMLElement>('.mount')
    if (!mount) {
      mount = document.createElement('div')
      mount.className = `mount ${className ?? ''}`
      root.appendChild(mount)
    }
    setContainer(mount)
  }, [className, styles])
  return (
    <div
      ref={host}
      data-advisor-chain-devtools-host=""
      style={className === 'embedded' ? { display: 'block', height: '100%' } : { display: 'contents' }}
    >
      {container && createPortal(children, container)}
    </div>
  )
}
